package fix_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
)

// TestJSONOnlyRealDamage: on the files node's appendFile wrote and real
// damage hurt (whose records are runtime messages, so valid JSON), the
// JSON-level repairs are the runtime's: FixAll with Options.JSONOnly
// writes the same bytes, safe and unsafe, and leaves the same ambiguities.
func TestJSONOnlyRealDamage(t *testing.T) {
	for _, d := range damagedFiles(t) {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel() // files apart, on every core: four FixAlls a file take minutes under -race
			for _, unsafe := range []bool{false, true} {
				seed := fix.FixAll(d.data, analysis.Options{}, unsafe)
				js := fix.FixAll(d.data, analysis.Options{JSONOnly: true}, unsafe)
				if !bytes.Equal(js.Data, seed.Data) || js.Fixed != seed.Fixed || len(js.Ambiguities) != len(seed.Ambiguities) || js.Lost != seed.Lost {
					t.Errorf("unsafe=%v: JSON-only fixed %d (lost %+v, %d ambiguities), seed %d (lost %+v, %d ambiguities); same bytes: %v",
						unsafe, js.Fixed, js.Lost, len(js.Ambiguities), seed.Fixed, seed.Lost, len(seed.Ambiguities), bytes.Equal(js.Data, seed.Data))
				}
			}
		})
	}
}

// TestJSONOnlyFixes: records that are no runtime message (a Claude Code
// transcript's) are repaired at JSON.parse's level: a record split by a raw
// line break is joined (safe), a cut tail deleted (unsafe), a trailing
// comma removed (safe), and every intact record kept byte for byte. The
// seed's rules would repair none of them (none is a valid message).
func TestJSONOnlyFixes(t *testing.T) {
	a := `{"type":"user","uuid":"u1","message":{"role":"user","content":"hello"}}`
	b := `{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}`
	split := `{"type":"user","uuid":"u2","parentUuid":"a1","message":{"role":"user","content":"two` + "\n" + `lines"}}`
	joined := `{"type":"user","uuid":"u2","parentUuid":"a1","message":{"role":"user","content":"two\nlines"}}`
	comma := `{"type":"summary","summary":"s","leafUuid":"u2",}`
	cut := `{"type":"assistant","uuid":"a2","message":{"role":"assis`
	data := []byte(strings.Join([]string{a, b, split, comma, cut}, "\n") + "\n")
	opts := analysis.Options{JSONOnly: true}

	rep := analysis.Analyze(data, opts)
	var codes []string
	for _, f := range rep.Findings {
		codes = append(codes, f.Code)
	}
	if want := "split-record split-record invalid-json truncated-record"; strings.Join(codes, " ") != want {
		t.Fatalf("findings %v, want %s", codes, want)
	}
	fixes := fix.ComputeJSON(data, rep.Findings)
	if len(fixes) != 3 {
		t.Fatalf("%d fixes, want 3: %+v", len(fixes), fixes)
	}
	for _, f := range fix.Compute(data, analysis.Analyze(data, analysis.Options{}).Findings) {
		// The seed's rules only delete (cut records): joined or with the
		// comma removed, these are no valid messages.
		if f.Safety == fix.Safe {
			t.Errorf("the seed's rules repair line %d: %+v", f.Line, f)
		}
	}

	safe := fix.FixAll(data, opts, false)
	want := strings.Join([]string{a, b, joined, `{"type":"summary","summary":"s","leafUuid":"u2"}`, cut}, "\n") + "\n"
	if string(safe.Data) != want {
		t.Errorf("safe fixes:\n%s\nwant\n%s", safe.Data, want)
	}
	all := fix.FixAll(data, opts, true)
	want = strings.Join([]string{a, b, joined, `{"type":"summary","summary":"s","leafUuid":"u2"}`}, "\n") + "\n"
	if string(all.Data) != want {
		t.Errorf("every fix:\n%s\nwant\n%s", all.Data, want)
	}
	if !all.Report.Loads() || len(all.Report.Records) != 4 || all.Lost.Records != 1 {
		t.Errorf("after every fix: loads %v, %d records, lost %+v", all.Report.Loads(), len(all.Report.Records), all.Lost)
	}
	if all.Origin[0] != 1 || all.Origin[1] != 2 || all.Origin[2] != 0 {
		t.Errorf("origins %v", all.Origin)
	}
}
