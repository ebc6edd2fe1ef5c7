package fix

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
)

// FixAllCapped fixes as FixAllContext does (the rounds plan every finding)
// and only its report is capped: each code's first findings, the rest
// counted in Omitted with the lines asked for. Over the sessions and
// damage samples of testdata, and files past the cap: refused lines no fix
// repairs, orphans an unsafe run holds (a refused line declares their id)
// or deletes, and fixes that leave more than the cap behind.
func TestFixAllCappedIsFixAll(t *testing.T) {
	inputs := map[string][]byte{
		"nope":  []byte(strings.Repeat("nope\n", 300)),
		"held":  []byte(userX + "\n" + strings.Repeat(`{"role":"assistant","toolCalls":[{"id":"a"`+"\n"+toolA+"\n", 150)),
		"orphs": []byte(userX + "\n" + strings.Repeat(toolA+"\n", 150) + strings.Repeat(`{"role":"user","content":"tr`+"\n", 150)),
		"mixed": []byte(strings.Repeat(`{"role":"user","content":"x`+"\nnope\n"+userX+"  \n\t\n", 150)),
	}
	for _, dir := range []string{"../../testdata/sessions", "../../testdata/damage/samples"} {
		paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			inputs[p] = b
		}
	}
	if len(inputs) < 10 {
		t.Fatalf("%d inputs; want the testdata files too", len(inputs))
	}
	lines := map[string]bool{analysis.CodeInvalidJSON: true, analysis.CodeOrphanToolResult: true}
	ctx := context.Background()
	for name, data := range inputs {
		for _, jsonOnly := range []bool{false, true} {
			for _, unsafe := range []bool{false, true} {
				for _, limit := range []int{1, 100} {
					opts := analysis.Options{JSONOnly: jsonOnly}
					want, err := FixAllContext(ctx, data, opts, unsafe)
					if err != nil {
						t.Fatal(err)
					}
					got, err := FixAllCapped(ctx, data, opts, unsafe, limit, lines)
					if err != nil {
						t.Fatal(err)
					}
					id := name
					if jsonOnly {
						id += " json-only"
					}
					if unsafe {
						id += " unsafe"
					}
					if string(got.Data) != string(want.Data) || got.Fixed != want.Fixed || got.Lost != want.Lost ||
						got.HeldOrphans != want.HeldOrphans || !reflect.DeepEqual(got.Origin, want.Origin) ||
						!reflect.DeepEqual(got.Ambiguities, want.Ambiguities) {
						t.Errorf("%s, cap %d: FixAllCapped fixed %d (held %d, lost %+v), FixAllContext %d (held %d, lost %+v), or their data, origins or ambiguities differ",
							id, limit, got.Fixed, got.HeldOrphans, got.Lost, want.Fixed, want.HeldOrphans, want.Lost)
					}
					if !strings.Contains(name, "/") && !(jsonOnly && unsafe) && len(got.Report.Omitted) == 0 && mostOfACode(want.Report) > limit {
						t.Errorf("%s, cap %d: the report is whole (%d findings); want it capped", id, limit, len(got.Report.Findings))
					}
					if name == "held" && unsafe && !jsonOnly && want.HeldOrphans == 0 {
						t.Errorf("%s: no orphan held; the input must hold some", id)
					}
					checkCapped(t, id, limit, lines, got.Report, want.Report)
				}
			}
		}
	}
}

// checkCapped checks that capped lists the first limit findings of each
// code of whole, in whole's order, and counts the rest (their lines for
// the codes of lines) unless capped is whole itself.
func checkCapped(t *testing.T, id string, limit int, lines map[string]bool, capped, whole *analysis.Report) {
	t.Helper()
	if len(capped.Omitted) == 0 && len(capped.Findings) == len(whole.Findings) {
		if !reflect.DeepEqual(capped.Findings, whole.Findings) {
			t.Errorf("%s, cap %d: the report's findings differ from FixAllContext's", id, limit)
		}
		return
	}
	seen := map[string]int{}
	var kept []analysis.Finding
	rest := map[string][]int{}
	for _, f := range whole.Findings {
		seen[f.Code]++
		if seen[f.Code] <= limit {
			kept = append(kept, f)
		} else {
			rest[f.Code] = append(rest[f.Code], f.Line)
		}
	}
	if !reflect.DeepEqual(capped.Findings, kept) {
		t.Errorf("%s, cap %d: the report lists %d findings; want the first %d of each code, %d", id, limit, len(capped.Findings), limit, len(kept))
	}
	for _, o := range capped.Omitted {
		if o.N != len(rest[o.Code]) {
			t.Errorf("%s, cap %d: %d %s findings omitted; want %d", id, limit, o.N, o.Code, len(rest[o.Code]))
		}
		var got []int
		for ln := range o.Lines.All() {
			got = append(got, ln)
		}
		if lines[o.Code] && !reflect.DeepEqual(got, rest[o.Code]) {
			t.Errorf("%s, cap %d: the omitted %s lines are %v; want %v", id, limit, o.Code, got, rest[o.Code])
		}
		delete(rest, o.Code)
	}
	if len(rest) > 0 {
		t.Errorf("%s, cap %d: findings past the cap not counted: %v", id, limit, rest)
	}
}

// mostOfACode is the number of findings of the code r has most of.
func mostOfACode(r *analysis.Report) int {
	n := map[string]int{}
	most := 0
	for _, f := range r.Findings {
		n[f.Code]++
		most = max(most, n[f.Code])
	}
	return most
}
