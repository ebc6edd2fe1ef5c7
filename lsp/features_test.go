package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// TestCapabilities pins what initialize advertises (README.md,
// Capabilities): building it from the feature table must not change it.
func TestCapabilities(t *testing.T) {
	b, err := json.Marshal(capabilities())
	if err != nil {
		t.Fatal(err)
	}
	want := `{
		"textDocumentSync": {"openClose": true, "change": 2, "save": {}},
		"hoverProvider": true,
		"definitionProvider": true,
		"referencesProvider": true,
		"documentSymbolProvider": true,
		"codeActionProvider": {"codeActionKinds": ["refactor.rewrite", "quickfix", "source.fixAll.sessionls"]},
		"codeLensProvider": {"resolveProvider": true},
		"foldingRangeProvider": true,
		"executeCommandProvider": {"commands": ["sessionls.setBudget", "sessionls.removeDiskBOM"]},
		"positionEncoding": "utf-16"
	}`
	if same, err := jsonEqual(want, string(b)); err != nil || !same {
		t.Fatalf("capabilities() = %s, want %s (%v)", b, want, err)
	}

	for _, f := range features() {
		if f.advertise == nil {
			continue
		}
		var c protocol.ServerCapabilities
		f.advertise(&c)
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(b); got == "{}" {
			t.Fatalf("%s: its advertise sets no capability: string(b) = %q, want anything else", f.method, got)
		}
	}
}

// handlerKind is how the server answers a protocol.Server method.
type handlerKind int

const (
	stub    handlerKind = iota // unimplemented's: the method is not served
	routed                     // the router calls the server itself (protocolfix.go)
	handled                    // a server method
)

// callWithZeroParams calls method name of v with a background context and
// zero parameters (pointers to zero values), and returns its error.
func callWithZeroParams(t *testing.T, v reflect.Value, name string, args ...any) (err error) {
	t.Helper()
	m := v.MethodByName(name)
	if !m.IsValid() {
		t.Fatalf("%v: m.IsValid() is false, want true", name)
	}
	in := []reflect.Value{reflect.ValueOf(context.Background())}
	for i := 1; i < m.Type().NumIn(); i++ {
		if i-1 < len(args) {
			in = append(in, reflect.ValueOf(args[i-1]))
			continue
		}
		at := m.Type().In(i)
		if at.Kind() == reflect.Pointer {
			in = append(in, reflect.New(at.Elem()))
		} else {
			in = append(in, reflect.Zero(at))
		}
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s panicked with zero params: %v", name, p)
			t.Error(err)
		}
	}()
	out := m.Call(in)
	e, _ := out[len(out)-1].Interface().(error)
	return e
}

func kindOf(err error, method string) handlerKind {
	var ni *notImplementedError
	switch {
	case errors.As(err, &ni):
		return stub
	case err != nil && err.Error() == errRouted(method).Error():
		return routed
	}
	return handled
}

// TestFeatureTable checks that the feature table and the server's methods
// agree: every method in the table has a handler (a server method that
// overrides unimplemented's stub, or one the router calls), and every
// handler is in the table, so the router serves it and initialize
// advertises it.
func TestFeatureTable(t *testing.T) {
	srv := newServer(context.Background(), zap.NewNop(), nil)
	sv, uv := reflect.ValueOf(srv), reflect.ValueOf(unimplemented{})

	table := map[string]bool{}
	for _, f := range features() {
		if table[f.method] {
			t.Fatalf("%s is in the table twice: table[f.method] is true, want false", f.method)
		}
		table[f.method] = true
	}

	// Every protocol.Server method: its LSP name (from the stub's error)
	// and whether the server handles it.
	handledMethods := map[string]bool{}
	iface := reflect.TypeFor[protocol.Server]()
	for i := range iface.NumMethod() {
		name := iface.Method(i).Name
		if name == "Request" {
			continue // custom methods, below
		}
		var ni *notImplementedError
		if !errors.As(callWithZeroParams(t, uv, name), &ni) {
			t.Fatalf("unimplemented.%s is not a stub: errors.As(callWithZeroParams(t, uv, name), &ni) is false, want true", name)
		}
		switch kindOf(callWithZeroParams(t, sv, name), ni.method) {
		case stub:
			if table[ni.method] {
				t.Fatalf("%s (%s) is in the feature table but the server has no handler: table[ni.method] is true, want false", ni.method, name)
			}
		case routed, handled:
			if !table[ni.method] {
				t.Fatalf("the server handles %s (%s) but the feature table does not list it: table[ni.method] is false, want true", ni.method, name)
			}
			handledMethods[ni.method] = true
		}
	}

	// The rest of the table are custom methods, which ServerHandler passes
	// to Request.
	for m := range table {
		if handledMethods[m] {
			continue
		}
		err := callWithZeroParams(t, sv, "Request", m)
		if got := kindOf(err, m); got == stub {
			t.Fatalf("%s is in the feature table but Request does not serve it: kindOf(err, m) = %v, want anything else", m, got)
		}
		if want, got := "method not found: "+m, errMessage(err); got == want {
			t.Fatalf("%s is in the feature table but Request does not serve it: errMessage(err) = %q, want anything else", m, got)
		}
	}
	if got := errMessage(callWithZeroParams(t, sv, "Request", "sessionls/nope")); !strings.Contains(got, "method not found") {
		t.Fatalf(`errMessage(callWithZeroParams(t, sv, "Request", "sessionls/nope")) = %q, want it to contain %q`, got, "method not found")
	}
}

func errMessage(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
