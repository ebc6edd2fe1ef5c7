package lsp

import (
	"reflect"
	"strings"
	"testing"
)

func TestPreview(t *testing.T) {
	if got := preview(" \n\t", 40); got != "(empty)" {
		t.Fatalf(`preview(" \n\t", 40) = %q, want %q`, got, "(empty)")
	}
	if got := preview("a\n b\t\tc", 40); got != "a b c" {
		t.Fatalf(`preview("a\n b\t\tc", 40) = %q, want %q`, got, "a b c")
	}
	if got := preview("🙏éx", 2); got != "🙏é…" {
		t.Fatalf(`preview("🙏éx", 2) = %q, want %q`, got, "🙏é…")
	}
	if got := preview("abc", 3); got != "abc" {
		t.Fatalf(`preview("abc", 3) = %q, want %q`, got, "abc")
	}
}

func TestGlob(t *testing.T) {
	// The matching is internal/glob's, whose TestServerCases holds the
	// files setting's cases; here, that matchGlob hands the roots on and
	// that a glob which does not compile matches nothing.
	roots := []string{"/work"}
	if !matchGlob("logs/*.txt", "/work/logs/b.txt", roots) {
		t.Fatal(`matchGlob("logs/*.txt", "/work/logs/b.txt", roots) is false, want true`)
	}
	if matchGlob("logs/*.txt", "/work/x/logs/b.txt", roots) {
		t.Fatal(`relative to the root: matchGlob("logs/*.txt", "/work/x/logs/b.txt", roots) is true, want false`)
	}
	if !matchGlob("logs/*.txt", "/other/logs/b.txt", roots) {
		t.Fatal(`under no root, any tail: matchGlob("logs/*.txt", "/other/logs/b.txt", roots) is false, want true`)
	}
	if matchGlob("[", "/work/[", roots) {
		t.Fatal(`matchGlob("[", "/work/[", roots) is true, want false`)
	}
	if err := checkGlob("["); err == nil {
		t.Fatal(`checkGlob("[") = nil, want an error`)
	}
	if err := checkGlob(" "); err == nil {
		t.Fatal(`checkGlob(" ") = nil, want an error`)
	}
	if err := checkGlob("**/*.{jsonl}"); err != nil {
		t.Fatalf(`checkGlob("**/*.{jsonl}"): %v`, err)
	}

	// Exponential for the brace-expanding matcher this replaced (2^24
	// patterns; ten "**" backtracking over a deep path): linear now, so
	// these return at once (internal/glob counts the steps).
	braces := "**/*" + strings.Repeat("{a,b}", 24)
	if !matchGlob(braces, "/work/x/"+strings.Repeat("ab", 12), roots) {
		t.Fatal(`matchGlob(braces, "/work/x/"+strings.Repeat("ab", 12), roots) is false, want true`)
	}
	if matchGlob(braces, "/work/x/"+strings.Repeat("ab", 12)+"c", roots) {
		t.Fatal(`matchGlob(braces, "/work/x/"+strings.Repeat("ab", 12)+"c", roots) is true, want false`)
	}
	if matchGlob(strings.Repeat("**/", 10)+"x", "/"+strings.Repeat("d/", 300)+"y", nil) {
		t.Fatal(`matchGlob(strings.Repeat("**/", 10)+"x", "/"+strings.Repeat("d/", 300)+"y", nil) is true, want false`)
	}
	// Past the bounds: refused with a reason, never matched slowly.
	if err := checkGlob("**/*" + strings.Repeat("{a,b}", 33)); err == nil || !strings.Contains(err.Error(), "more than 32") {
		t.Fatalf(`checkGlob("**/*"+strings.Repeat("{a,b}", 33)) = %v, want an error containing %q`, err, "more than 32")
	}
	if err := checkGlobs(make([]string, 129)); err == nil || !strings.Contains(err.Error(), "at most 128") {
		t.Fatalf("checkGlobs(make([]string, 129)) = %v, want an error containing %q", err, "at most 128")
	}
	_, errs := parseSettings(map[string]any{"files": []any{"**/*" + strings.Repeat("{a,b}", 40)}})
	requireLen(t, "errs", errs, 1)
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "sessionls.files: glob") {
		t.Fatalf("errs[0] = %v, want an error containing %q", errs[0], "sessionls.files: glob")
	}
}

func TestParseBudget(t *testing.T) {
	ok := map[any]int64{float64(8000): 8000, "8000": 8000, "8,000": 8000, " 42 ": 42, float64(1e3): 1000}
	for in, want := range ok {
		got, err := parseBudget(in, false)
		if err != nil {
			t.Fatalf("%v: %v", in, err)
		}
		if got != want {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	for _, in := range []any{float64(0), float64(-1), 2.5, "x", "", nil, true, []any{1}, map[string]any{}, float64(1e300)} {
		_, err := parseBudget(in, false)
		if err == nil {
			t.Fatalf("%v: err = nil, want an error", in)
		}
	}
	got, err := parseBudget(float64(0), true)
	if err != nil {
		t.Fatal(err)
	}
	if got != 0 {
		t.Fatalf("got = %v, want 0", got)
	}
}

func TestSettingsSection(t *testing.T) {
	sec, ok := sessionlsSection(map[string]any{"sessionls": map[string]any{"budget": 5.0}})
	if !ok {
		t.Fatal("ok is false, want true")
	}
	if !reflect.DeepEqual(sec["budget"], 5.0) {
		t.Fatalf(`sec["budget"] = %+v, want %v`, sec["budget"], 5.0)
	}
	_, ok = sessionlsSection(nil)
	if ok {
		t.Fatal("ok is true, want false")
	}
	_, ok = sessionlsSection(map[string]any{"other": 1.0})
	if ok {
		t.Fatal("ok is true, want false")
	}
	_, ok = sessionlsSection(map[string]any{"budget": 1.0})
	if !ok {
		t.Fatal("ok is false, want true")
	}

	p, errs := parseSettings(map[string]any{"budget": 10.0, "checks": []any{"swept-message", "nope"}, "files": []any{"*.x"}})
	requireLen(t, "errs", errs, 1)
	if want := int64(10); *p.budget != want {
		t.Fatalf("*p.budget = %v, want %v", *p.budget, want)
	}
	if want := (map[string]bool{"swept-message": true}); !reflect.DeepEqual(p.disabled, want) {
		t.Fatalf("p.disabled = %+v, want %+v", p.disabled, want)
	}
	if want := ([]string{"*.x"}); !reflect.DeepEqual(p.files, want) {
		t.Fatalf("p.files = %+v, want %+v", p.files, want)
	}
	_, errs = parseSettings(map[string]any{"checks": "swept-message", "files": []any{"["}})
	requireLen(t, "errs", errs, 2)
}
