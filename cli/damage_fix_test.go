package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
)

// TestCheckStreamedFixesOfDamage: for each damage class, the fix a plain
// check reports (reading the file again line by line) is the one --fix
// makes on the whole file: a record split over lines, even with an empty
// line and a CRLF in it, is joined (safe) on its first line and its other
// lines get none; an orphan a damaged assistant may have declared is kept.
func TestCheckStreamedFixesOfDamage(t *testing.T) {
	user := `{"role":"user","content":"x"}`
	for name, text := range map[string]string{
		"split":         user + "\n" + `{"role":"user","content":"one` + "\n\n" + "two\r\n" + `three"}` + "\n" + user + "\n",
		"split twice":   `{"role":"user","content":"a` + "\n" + `b"}` + "\n" + `{"role":"user","content":"c` + "\n" + `d"}` + "\n",
		"split, broken": `{"role":"user","content":"a` + "\n" + `b"` + "\n" + user + "\n",
		"held orphan": `{"role":"assistant","content":"c","toolCalls":[{"id":"a","name":"ls","input":{}}` + "\n" +
			`{"role":"tool","content":"r","toolCallId":"a","isError":false}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			data := []byte(text)
			path := filepath.Join(t.TempDir(), "f.jsonl")
			writeFile(t, path, data, 0o644)
			want := engineFixes(data, analysis.Analyze(data, analysis.Options{}).Findings)
			got := map[fixKey]string{}
			for _, f := range checkJSON(t, path) {
				if f.Fix != nil {
					got[fixKey{f.Line, f.Code}] = *f.Fix
				}
			}
			wantEqual(t, "got", got, want)
			if name == "split" {
				wantEqual(t, "the join, on the first line only: want", want, map[fixKey]string{{2, analysis.CodeSplitRecord}: "safe"})
			}
		})
	}
}

// TestCheckCountsFixesOfDamagePastTheCap: past the findings listed per code,
// check still counts the fixes --fix makes of damage: each record split
// over lines is one safe fix (its other lines none), and an orphan a
// refused line may declare is not counted.
func TestCheckCountsFixesOfDamagePastTheCap(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"role":"assistant","content":"c","toolCalls":[{"id":"a","name":"ls","input":{}}` + "\n") // cut: may declare "a"
	for i := range maxListedPerCode + 30 {
		fmt.Fprintf(&b, "{\"role\":\"user\",\"content\":\"one %d\ntwo\n\nthree\"}\n", i)
		b.WriteString(`{"role":"tool","content":"r","toolCallId":"a","isError":false}` + "\n")
	}
	data := []byte(b.String())
	path := filepath.Join(t.TempDir(), "f.jsonl")
	writeFile(t, path, data, 0o644)
	safe, unsafe := 0, 0
	for _, f := range fix.Compute(data, analysis.Analyze(data, analysis.Options{}).Findings) {
		if f.Safety == fix.Safe {
			safe++
		} else {
			unsafe++
		}
	}
	if want := maxListedPerCode + 30; safe != want {
		t.Fatalf("one join per split record: safe = %v, want %v", safe, want)
	}
	r := sessionls(t, "check", path)
	if want := fmt.Sprintf("%d fixable with --fix (%d more with --fix --unsafe-fixes).", safe, unsafe); !strings.Contains(r.stdout, want) {
		t.Errorf("r.stdout = %q, want it to contain %q", r.stdout, want)
	}
}
