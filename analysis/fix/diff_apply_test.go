package fix_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/internal/randjsonl"
)

// applyUnified applies a unified diff to old, checking every context and
// removed line against old, as patch does.
func applyUnified(old, diff []byte) ([]byte, error) {
	lines := strings.SplitAfter(string(diff), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return nil, fmt.Errorf("no header")
	}
	a := strings.SplitAfter(string(old), "\n")
	if a[len(a)-1] == "" {
		a = a[:len(a)-1]
	}
	var out []string
	pos := 0 // next old line
	var last *string
	for k := 2; k < len(lines) && lines[k] != ""; k++ {
		l := lines[k]
		switch {
		case strings.HasPrefix(l, "@@ -"):
			f := strings.Fields(l)
			start, _, _ := strings.Cut(strings.TrimPrefix(f[1], "-"), ",")
			n, err := strconv.Atoi(start)
			if err != nil {
				return nil, fmt.Errorf("bad hunk header %q", l)
			}
			if !strings.Contains(f[1], ",0") {
				n-- // 1-based, except an empty range, which names the line before
			}
			if n < pos {
				return nil, fmt.Errorf("hunk %q goes back", l)
			}
			out = append(out, a[pos:n]...)
			pos = n
		case l == "\\ No newline at end of file\n":
			if last == nil {
				return nil, fmt.Errorf("stray no-newline marker")
			}
			*last = strings.TrimSuffix(*last, "\n")
		case l[0] == ' ' || l[0] == '-':
			if pos >= len(a) || (a[pos] != l[1:] && a[pos]+"\n" != l[1:]) {
				return nil, fmt.Errorf("line %d: diff has %q, file has %q", pos+1, l[1:], a[pos])
			}
			pos++
			if l[0] == ' ' {
				out = append(out, l[1:])
				last = &out[len(out)-1]
			} else {
				dropped := l[1:]
				last = &dropped
			}
		case l[0] == '+':
			out = append(out, l[1:])
			last = &out[len(out)-1]
		default:
			return nil, fmt.Errorf("bad diff line %q", l)
		}
	}
	out = append(out, a[pos:]...)
	return []byte(strings.Join(out, "")), nil
}

func TestUnifiedDiffExample(t *testing.T) {
	in := "\ufeff" + `{"role":"user","content":"x"}` + "\n" +
		`{"role":"user","content":"a"}` + "\n" + `{"role":"user","content":"b"}` + "\n" + `{"role":"user","content":"c"}` + "\n" +
		`{"role":"user","content":"d"}` + "\n" + `{"role":"user","content":"e"}` + "\n" + `{"role":"user","content":"f"}` + "\n" +
		`{"role":"user","content":"g"}` + "\n" + " \r\n" + `{"role":"user","content":"x"}{"role":"user","content":"y"}`
	res := fix.FixAll([]byte(in), analysis.Options{}, false)
	got := string(fix.UnifiedDiff("a/s.jsonl", "b/s.jsonl", []byte(in), res.Data, res.Origin))
	want := `--- a/s.jsonl
+++ b/s.jsonl
@@ -1,4 +1,4 @@
-` + "\ufeff" + `{"role":"user","content":"x"}
+{"role":"user","content":"x"}
 {"role":"user","content":"a"}
 {"role":"user","content":"b"}
 {"role":"user","content":"c"}
@@ -6,5 +6,5 @@
 {"role":"user","content":"e"}
 {"role":"user","content":"f"}
 {"role":"user","content":"g"}
- ` + "\r" + `
-{"role":"user","content":"x"}{"role":"user","content":"y"}
\ No newline at end of file
+{"role":"user","content":"x"}
+{"role":"user","content":"y"}
\ No newline at end of file
`
	if got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	if d := fix.UnifiedDiff("a", "b", res.Data, res.Data, nil); d != nil {
		t.Errorf("diff of equal files: %q", d)
	}
}

// TestUnifiedDiffApplies: on randomly corrupted sessions, the diff of what
// FixAll does, applied to the input, gives FixAll's output; so does a diff
// made without origins (everything replaced).
func TestUnifiedDiffApplies(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	c := &corrupter{r: r, counts: map[string]int{}}
	n := 0
	for n < 200 {
		data := randjsonl.File(r, 3+r.IntN(30))
		if !analysis.Analyze(data, analysis.Options{}).Loads() {
			continue
		}
		n++
		var in []byte
		for _, sg := range c.file(data) {
			in = append(in, sg.corrupt...)
		}
		for _, unsafe := range []bool{false, true} {
			res := fix.FixAll(in, analysis.Options{}, unsafe)
			for _, origin := range [][]int{res.Origin, nil} {
				d := fix.UnifiedDiff("a", "b", in, res.Data, origin)
				if (d == nil) != bytes.Equal(in, res.Data) {
					t.Fatalf("diff %q for a change %v", d, !bytes.Equal(in, res.Data))
				}
				if d == nil {
					continue
				}
				got, err := applyUnified(in, d)
				if err != nil || !bytes.Equal(got, res.Data) {
					t.Fatalf("diff does not apply (%v):\n%s\ngot  %q\nwant %q", err, d, got, res.Data)
				}
				if got := applyChanges(in, fix.Changes(in, res.Data, origin)); !bytes.Equal(got, res.Data) {
					t.Fatalf("changes do not apply:\ngot  %q\nwant %q", got, res.Data)
				}
			}
		}
	}
}

// applyChanges replaces the runs of old's lines that changes name.
func applyChanges(old []byte, changes []fix.Change) []byte {
	lines := bytes.SplitAfter(old, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	var out []byte
	prev := 0
	for _, c := range changes {
		out = append(out, bytes.Join(lines[prev:c.OldStart], nil)...)
		out = append(out, c.New...)
		prev = c.OldEnd
	}
	return append(out, bytes.Join(lines[prev:], nil)...)
}
