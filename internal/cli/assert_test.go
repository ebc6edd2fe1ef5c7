package cli

// A few testify-style assertions. testify/assert cannot be built in this
// module (its yaml dependency has no go.sum entry, and go.mod is not ours to
// change), so the tests use these instead.

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

type asserter struct{ fatal bool }

var (
	assert  = asserter{}
	require = asserter{fatal: true}
)

func (a asserter) fail(t *testing.T, msgAndArgs []any, format string, args ...any) bool {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if len(msgAndArgs) > 0 {
		if f, ok := msgAndArgs[0].(string); ok {
			msg = fmt.Sprintf(f, msgAndArgs[1:]...) + ": " + msg
		} else {
			msg = fmt.Sprint(msgAndArgs...) + ": " + msg
		}
	}
	if a.fatal {
		t.Fatal(msg)
	}
	t.Error(msg)
	return false
}

func (a asserter) Equal(t *testing.T, want, got any, msgAndArgs ...any) bool {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		return a.fail(t, msgAndArgs, "not equal:\n want %#v\n  got %#v", want, got)
	}
	return true
}

func (a asserter) True(t *testing.T, cond bool, msgAndArgs ...any) bool {
	t.Helper()
	if !cond {
		return a.fail(t, msgAndArgs, "condition is false")
	}
	return true
}

func (a asserter) False(t *testing.T, cond bool, msgAndArgs ...any) bool {
	t.Helper()
	return a.True(t, !cond, msgAndArgs...)
}

func (a asserter) NoError(t *testing.T, err error, msgAndArgs ...any) bool {
	t.Helper()
	if err != nil {
		return a.fail(t, msgAndArgs, "unexpected error: %v", err)
	}
	return true
}

func (a asserter) Error(t *testing.T, err error, msgAndArgs ...any) bool {
	t.Helper()
	if err == nil {
		return a.fail(t, msgAndArgs, "expected an error")
	}
	return true
}

func (a asserter) ErrorContains(t *testing.T, err error, sub string, msgAndArgs ...any) bool {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), sub) {
		return a.fail(t, msgAndArgs, "error %v does not contain %q", err, sub)
	}
	return true
}

func (a asserter) ErrorIs(t *testing.T, err, target error, msgAndArgs ...any) bool {
	t.Helper()
	if !errors.Is(err, target) {
		return a.fail(t, msgAndArgs, "error %v is not %v", err, target)
	}
	return true
}

// Contains: a substring of a string, or an element of a slice.
func (a asserter) Contains(t *testing.T, container, elem any, msgAndArgs ...any) bool {
	t.Helper()
	if s, ok := container.(string); ok {
		if !strings.Contains(s, fmt.Sprint(elem)) {
			return a.fail(t, msgAndArgs, "%q does not contain %q", s, elem)
		}
		return true
	}
	v := reflect.ValueOf(container)
	if v.Kind() == reflect.Slice || v.Kind() == reflect.Array {
		for i := range v.Len() {
			if reflect.DeepEqual(v.Index(i).Interface(), elem) {
				return true
			}
		}
	}
	return a.fail(t, msgAndArgs, "%#v does not contain %#v", container, elem)
}

func (a asserter) NotContains(t *testing.T, s, sub string, msgAndArgs ...any) bool {
	t.Helper()
	if strings.Contains(s, sub) {
		return a.fail(t, msgAndArgs, "%q contains %q", s, sub)
	}
	return true
}

func isEmpty(v any) bool {
	if v == nil {
		return true
	}
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
		return r.Len() == 0
	}
	return r.IsZero()
}

func (a asserter) Empty(t *testing.T, v any, msgAndArgs ...any) bool {
	t.Helper()
	if !isEmpty(v) {
		return a.fail(t, msgAndArgs, "expected empty, got %#v", v)
	}
	return true
}

func (a asserter) NotEmpty(t *testing.T, v any, msgAndArgs ...any) bool {
	t.Helper()
	if isEmpty(v) {
		return a.fail(t, msgAndArgs, "expected a value, got %#v", v)
	}
	return true
}

func (a asserter) Len(t *testing.T, v any, n int, msgAndArgs ...any) bool {
	t.Helper()
	if l := reflect.ValueOf(v).Len(); l != n {
		return a.fail(t, msgAndArgs, "length %d, want %d", l, n)
	}
	return true
}

func toFloat(v any) float64 { return reflect.ValueOf(v).Convert(reflect.TypeFor[float64]()).Float() }

func (a asserter) Greater(t *testing.T, x, y any, msgAndArgs ...any) bool {
	t.Helper()
	if !(toFloat(x) > toFloat(y)) {
		return a.fail(t, msgAndArgs, "%v is not > %v", x, y)
	}
	return true
}

func (a asserter) GreaterOrEqual(t *testing.T, x, y any, msgAndArgs ...any) bool {
	t.Helper()
	if !(toFloat(x) >= toFloat(y)) {
		return a.fail(t, msgAndArgs, "%v is not >= %v", x, y)
	}
	return true
}

func (a asserter) LessOrEqual(t *testing.T, x, y any, msgAndArgs ...any) bool {
	t.Helper()
	if !(toFloat(x) <= toFloat(y)) {
		return a.fail(t, msgAndArgs, "%v is not <= %v", x, y)
	}
	return true
}

func (a asserter) NotNil(t *testing.T, v any, msgAndArgs ...any) bool {
	t.Helper()
	if v == nil || (reflect.ValueOf(v).Kind() == reflect.Pointer && reflect.ValueOf(v).IsNil()) {
		return a.fail(t, msgAndArgs, "expected non-nil")
	}
	return true
}
