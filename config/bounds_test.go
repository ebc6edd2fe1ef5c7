package config

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/allocs"
)

// nestedTables is "x = {k…0 = {k…1 = … 1}}" with n tables and keys of
// keyLen bytes: 9,999 tables of 40-byte keys (430 KB) took 4 GB.
func nestedTables(n, keyLen int) string {
	var b strings.Builder
	b.WriteString("x = ")
	for i := range n {
		fmt.Fprintf(&b, "{%s%05d = ", strings.Repeat("k", keyLen-5), i)
	}
	b.WriteString("1")
	b.WriteString(strings.Repeat("}", n))
	b.WriteString("\n")
	return b.String()
}

// oneLineExclude is an exclude list of n globs on one line.
func oneLineExclude(n int) string {
	var b strings.Builder
	b.WriteString("exclude = [")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "'d%06d'", i)
	}
	b.WriteString("]\n")
	return b.String()
}

// TestParseBounds: hostile files of real size are refused before they are
// decoded, at the place that crosses the bound, in memory linear in the
// file (bytes allocated, not time, are measured).
func TestParseBounds(t *testing.T) {
	overrides := func(n int) string {
		return strings.Repeat("[[overrides]]\nfiles = ['a']\nbudget = 1\n", n)
	}
	tests := []struct {
		name      string
		src       string
		line, col int
		msg       string
	}{
		{"nested inline tables", nestedTables(9999, 40), 1, 5 + 16*44, "nested more than 16 deep"},
		{"nested arrays", "x = " + strings.Repeat("[", 400000) + strings.Repeat("]", 400000), 1, 5 + 16, "nested more than 16 deep"},
		{"nested on many lines", strings.Repeat("x = [\n", 30) + "1" + strings.Repeat("]", 30), 17, 5, "nested more than 16 deep"},
		{"table header", "[" + strings.Repeat("[", 17) + "a]]\n", 1, 17, "nested more than 16 deep"},
		{"long key", "budget = 1\n" + strings.Repeat("k", 129) + " = 1\n", 2, 1, "a key of 129 bytes: keys are at most 128 bytes"},
		{"long quoted key", "'" + strings.Repeat("é", 100) + "' = 1\n", 1, 1, "a key of 200 bytes"},
		{"long dotted key", strings.Repeat("a.", 100) + "b = 1\n", 1, 1, "a key of 201 bytes"},
		{"long table name", "[" + strings.Repeat("t", 300000) + "]\nbudget = 1\n", 1, 2, "a key of 300000 bytes"},
		{"long key deep inside", "x = {a = {b = {c = {d = {e = {" + strings.Repeat("f", 200) + " = 1}}}}}}\n", 1, 31, "a key of 200 bytes"},
		{"too many overrides", overrides(MaxOverrides + 1), 3*MaxOverrides + 1, 3, "65 [[overrides]] tables: at most 64 are allowed"},
		{"too many glob bytes", strings.Repeat("[[overrides]]\nfiles = ['"+strings.Repeat("a", 1000)+"', '"+strings.Repeat("b", 1000)+"']\n", 9),
			2 * 9, 1, "the globs of the file would have 18000 bytes in all: at most 16384 are allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			n := allocs.Once(func() { _, err = parse(t, tt.src) })
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("%v: errors.As(err, &es) = false, want true", err)
			}
			e := es[0]
			if got, want := e.Line, tt.line; got != want {
				t.Errorf("%v: e.Line = %v, want %v", e, got, want)
			}
			if got, want := e.Col, tt.col; got != want {
				t.Errorf("%v: e.Col = %v, want %v", e, got, want)
			}
			if !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("got %q, want it to contain %q", e.Msg, tt.msg)
			}
			if got := n; got > uint64(64*len(tt.src)+8<<20) {
				t.Errorf("bytes allocated for a %d-byte file: n = %v, want <= %v", len(tt.src), got, uint64(64*len(tt.src)+8<<20))
			}
		})
	}
}

// TestParseWithinBounds: what the bounds allow still parses.
func TestParseWithinBounds(t *testing.T) {
	for _, src := range []string{
		"overrides = [{files = ['a'], budget = 3}]\n",
		overridesN(MaxOverrides),
		"files = ['" + strings.Repeat("a", 1000) + "']\n",
		// Brackets in strings and comments do not nest.
		"# " + strings.Repeat("[{", 40) + "\nbudget = 1\n",
		"files = ['" + strings.Repeat("\\\\[", 1) + "a', \"\\\"[[[[[[[[[[[[[[[[[[[[\\\\[x\"]\n",
		"files = ['''" + strings.Repeat("[", 20) + "\\\\[a''']\n",
		"files = [\"\"\"\n" + strings.Repeat("{", 20) + "\\\\{a}\"\"\"\"]\n",
	} {
		_, err := parse(t, src)
		var es Errors
		if errors.As(err, &es) {
			for _, e := range es {
				if strings.Contains(e.Msg, "arrays and tables nested") {
					t.Errorf("%q: got %q, want it not to contain %q", src, e.Msg, "arrays and tables nested")
				}
			}
		}
	}
	f := mustParse(t, overridesN(MaxOverrides))
	if got := len(f.overrides); got != MaxOverrides {
		t.Fatalf("len(f.overrides) = %d, want %d", got, MaxOverrides)
	}
}

func overridesN(n int) string {
	return strings.Repeat("[[overrides]]\nfiles = ['a']\nbudget = 1\n", n)
}

func TestScanDepth(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1)
	tests := []struct {
		src  string
		want int
	}{
		{deep, MaxDepth},
		{"x = '" + deep + "'", -1},
		{"x = \"\\\"" + deep + "\"", -1},
		{"x = \"\"\"a\"\"\"\"" + deep, 12 + MaxDepth}, // """a"""" : the string is a" and ends there
		{"x = '''a'''''" + deep, 13 + MaxDepth},       // '''a''''' : a''
		{"x = \"\"\"\n" + deep + "\n\"\"\"\n" + deep, 8 + MaxDepth + 1 + 5 + MaxDepth},
		{"# " + deep + "\n" + deep, 2 + MaxDepth + 1 + 1 + MaxDepth},
		{"x = 'unterminated\n" + deep, 18 + MaxDepth},
		{strings.Repeat("[]", 1000), -1},
	}
	for _, tt := range tests {
		if got, want := scanDepth([]byte(tt.src)), tt.want; got != want {
			t.Errorf("%q: scanDepth([]byte(tt.src)) = %v, want %v", tt.src, got, want)
		}
	}
}

// TestPositionsOnOneLongLine: the positions of a file written on one long
// line are found in one pass over it (a 1 MiB exclude list counted its
// characters once per glob: 83 s).
func TestPositionsOnOneLongLine(t *testing.T) {
	data := []byte(oneLineExclude(80000))
	if got := len(data); got >= MaxFileSize {
		t.Fatalf("len(data) = %v, want < %v", got, MaxFileSize)
	}
	idx := newLineIndex(data)
	at, kerr := keyPositions(data, idx)
	if kerr != nil {
		t.Fatalf("kerr = %v, want nil", kerr)
	}
	if got := len(at); got != 80000+1 {
		t.Fatalf("len(at) = %d, want %d", got, 80000+1)
	}
	if got, want := at["exclude.79999"], (pos{1, 1 + len(data) - len("'d079999']\n")}); got != want {
		t.Errorf(`at["exclude.79999"] = %v, want %v`, got, want)
	}
	if got := idx.scanned; got > len(data) {
		t.Errorf("bytes scanned for a %d-byte line: idx.scanned = %v, want <= %v", len(data), got, len(data))
	}
	_, err := parse(t, string(data))
	if err == nil || !strings.Contains(err.Error(), "560000 bytes in all") {
		t.Fatalf("got error %v, want one containing %q", err, "560000 bytes in all")
	}
}

// TestBOM: a UTF-8 byte order mark at the start is allowed, as TOML says;
// columns on the first line count from after it.
func TestBOM(t *testing.T) {
	f := mustParse(t, "\ufeffbudget = 100\n")
	s := Defaults()
	f.Apply(&s, "/p/a.jsonl")
	if got := s.Budget.V; got != int64(100) {
		t.Errorf("s.Budget.V = %v, want %v", got, int64(100))
	}
	e := firstError(t, "\ufeffbudget = 'x'\n")
	if got := e.Col; got != 10 {
		t.Errorf("e.Col = %v, want %v", got, 10)
	}
	// Only at the start.
	e = firstError(t, "budget = 1\n\ufeffstrict = true\n")
	if got := e.Line; got != 2 {
		t.Errorf("e.Line = %v, want %v", got, 2)
	}
}

// invalidByte is how an error names a byte that is not UTF-8.
var invalidByte = regexp.MustCompile(`byte 0x[89A-F][0-9A-F] \(not UTF-8\)`)

// TestInvalidBytesShownAsBytes: a byte that is not UTF-8 is named as a
// byte, not as the Latin-1 character of the same number.
func TestInvalidBytesShownAsBytes(t *testing.T) {
	for _, src := range []string{"\xff = 1\n", "budget = \xff\n", "x = [1, \xfe]\n", "budget = 1\n\x80x = 2\n"} {
		e := firstError(t, src)
		if !invalidByte.MatchString(e.Msg) {
			t.Errorf("%q: got %q, want it to match %s", src, e.Msg, invalidByte)
		}
		if strings.Contains(e.Msg, "U+00") {
			t.Errorf("%q: got %q, want it not to contain %q", src, e.Msg, "U+00")
		}
	}
	// A real character keeps its name.
	// A real character is named as itself (the parser named its first
	// byte: "U+00C3 'Ã'" for ÿ).
	e := firstError(t, "budget = ÿ\n")
	if !strings.Contains(e.Msg, "U+00FF 'ÿ'") {
		t.Errorf("got %q, want it to contain %q", e.Msg, "U+00FF 'ÿ'")
	}
	e = firstError(t, "budget = 🎉\n")
	if !strings.Contains(e.Msg, "U+1F389 '🎉'") {
		t.Errorf("got %q, want it to contain %q", e.Msg, "U+1F389 '🎉'")
	}
}
