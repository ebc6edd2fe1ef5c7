package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect/dialecttest"
)

const corpus = "../../../testdata/dialects/claude-code"

// TestCorpus: the clean transcript gets no finding; each breakage is
// named at its line with its code; FixAll with the unsafe fixes leaves
// only what has no fix, keeps every intact record byte for byte (but for
// the parentUuid a fix re-points), and the stream reader's report equals
// Analyze's.
func TestCorpus(t *testing.T) {
	tests := []struct {
		file  string
		want  []string // findings
		after []string // findings after every fix
		safe  bool     // the safe fixes alone repair it
	}{
		{"clean.jsonl", nil, nil, true},
		{"missing-result-tail.jsonl", []string{"20:missing-tool-result"}, nil, false},
		{"missing-result-mid.jsonl", []string{"18:missing-tool-result"}, nil, false},
		{"orphan-result.jsonl", []string{"19:orphan-tool-result"}, nil, false},
		{"orphan-block.jsonl", []string{"19:orphan-tool-result"}, nil, false},
		{"broken-chain.jsonl", []string{"18:broken-parent-chain"}, nil, false},
		{"duplicate-tool-use-id.jsonl", []string{"20:duplicate-call-id"}, []string{"20:duplicate-call-id"}, false},
		{"duplicate-uuid.jsonl", []string{"19:duplicate-uuid"}, []string{"19:duplicate-uuid"}, false},
		{"malformed-record.jsonl", []string{"18:malformed-record"}, []string{"18:malformed-record"}, false},
		{"split-record.jsonl", []string{"18:split-record", "19:split-record", "20:broken-parent-chain"}, nil, true},
		{"truncated-tail.jsonl", []string{"19:truncated-record"}, nil, false},
		{"zero-filled.jsonl", []string{"18:zero-filled", "19:broken-parent-chain"}, nil, false},
	}
	seenCodes := map[string]bool{}
	defer func() {
		for _, c := range []string{analysis.CodeBrokenParentChain, analysis.CodeDuplicateUUID, analysis.CodeMalformedRecord} {
			if !seenCodes[c] {
				t.Errorf("the corpus makes no %s finding", c)
			}
		}
	}()
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			data := dialecttest.Read(t, corpus, tc.file)
			rep := Dialect{}.Analyze(data, analysis.Options{})
			if got := dialecttest.LineCodes(rep.Findings); !slices.Equal(got, tc.want) {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
			for _, f := range rep.Findings {
				seenCodes[f.Code] = true
				if r, _, ok := analysis.RuleFor(f.Code); !ok || r.SeverityIn("claude-code") != f.Severity {
					t.Errorf("%s finding has severity %s, the registry %s", f.Code, f.Severity, r.SeverityIn("claude-code"))
				}
			}
			stream, err := Dialect{}.AnalyzeReader(context.Background(), bytes.NewReader(data), analysis.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(stream, rep) {
				t.Errorf("the stream's report differs from Analyze's")
			}
			checkFixAll(t, data, tc.after)
			safe, err := Dialect{}.FixAll(context.Background(), data, analysis.Options{}, false)
			if err != nil {
				t.Fatal(err)
			}
			if fixed := len(dialecttest.LineCodes(safe.Report.Findings)) < len(tc.want) || len(tc.want) == 0; fixed != tc.safe {
				t.Errorf("the safe fixes alone leave %v", dialecttest.LineCodes(safe.Report.Findings))
			}
		})
	}
}

// checkFixAll runs FixAll with the unsafe fixes on data and checks what
// is left and what was kept.
func checkFixAll(t *testing.T, data []byte, after []string) {
	t.Helper()
	res, err := Dialect{}.FixAll(context.Background(), data, analysis.Options{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := dialecttest.LineCodes(res.Report.Findings); !slices.Equal(got, after) {
		t.Errorf("after FixAll: %v, want %v", got, after)
	}
	again, err := Dialect{}.FixAll(context.Background(), res.Data, analysis.Options{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Data, res.Data) {
		t.Errorf("FixAll is not idempotent")
	}
	// Every line of the input that JSON.parse accepts is in the output, in
	// order, byte for byte, unless a fix deleted it (an orphan's record)
	// or re-pointed its parentUuid (then only that value changed).
	kept := map[string]int{}
	for _, l := range bytes.Split(res.Data, []byte("\n")) {
		kept[string(l)]++
	}
	orphans := map[int]bool{} // lines an orphan's fix may delete or change
	for _, f := range (Dialect{}).Analyze(data, analysis.Options{}).Findings {
		if f.Code == analysis.CodeOrphanToolResult {
			orphans[f.Line] = true
		}
	}
	deleted, repointed := 0, 0
	for i, l := range bytes.Split(data, []byte("\n")) {
		if len(l) == 0 || !json.Valid(l) {
			continue
		}
		if kept[string(l)] > 0 {
			kept[string(l)]--
			continue
		}
		if findRepointed(res.Data, l) {
			repointed++
			continue
		}
		if orphans[i+1] {
			deleted++
			continue
		}
		t.Errorf("intact line %d is lost or changed: %.200s", i+1, l)
	}
	if deleted > 1 || repointed > 1 {
		t.Errorf("%d records deleted, %d re-pointed: a fix touched more than its own", deleted, repointed)
	}
	for _, l := range bytes.Split(res.Data, []byte("\n")) {
		if len(l) > 0 && !json.Valid(l) {
			t.Errorf("after FixAll a line is no JSON: %.120q", l)
		}
	}
}

// findRepointed reports whether out holds l with only its parentUuid's
// value changed.
func findRepointed(out, l []byte) bool {
	i := bytes.Index(l, []byte(`"parentUuid":`))
	if i < 0 {
		return false
	}
	v := i + len(`"parentUuid":`)
	e := skipValue(l, v)
	for _, o := range bytes.Split(out, []byte("\n")) {
		if bytes.HasPrefix(o, l[:v]) && bytes.HasSuffix(o, l[e:]) && len(o) >= len(l[:v])+len(l[e:]) {
			mid := o[v : len(o)-len(l[e:])]
			if json.Valid(mid) && !bytes.Equal(mid, l[v:e]) {
				return true
			}
		}
	}
	return false
}
