package codex

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect/dialecttest"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/analysis/tokens"
)

const corpus = "../../../testdata/dialects/codex"

// TestCorpus: each rollout of testdata/dialects/codex (gen.mjs wrote them
// with node's appendFile and real crashes) gets exactly its breakage's
// findings, at their lines; the clean one none but its compaction.
func TestCorpus(t *testing.T) {
	tests := []struct {
		file string
		want []string
		// contains: a finding's message must hold each (the API's exact
		// error, the loader's words)
		contains []string
		refused  bool
	}{
		{file: "clean.jsonl", want: []string{"23:codex-compaction"}},
		{file: "missing-output.jsonl",
			want:     []string{"9:missing-tool-result", "22:codex-compaction", "28:missing-tool-result"},
			contains: []string{`"No tool output found for function call call_Zr88k1."`, "the compaction at line 22 replaced it"}},
		{file: "orphan-output.jsonl", want: []string{"14:orphan-tool-result", "22:codex-compaction"},
			contains: []string{`"No tool call found for custom tool call output with call_id call_Vb71x9."`}},
		{file: "duplicate-call-id.jsonl", want: []string{"16:duplicate-call-id", "23:codex-compaction"}},
		{file: "skipped-lines.jsonl",
			want:     []string{"4:codex-skipped-line", "24:codex-compaction", "30:codex-skipped-line", "42:codex-skipped-line", "44:codex-skipped-line"},
			contains: []string{`unknown rollout item type "workspace_snapshot"`, `needs a string "call_id"`, `lone high surrogate \uD83E`, "127 levels"}},
		{file: "split-record.jsonl",
			want: []string{"14:split-record", "15:split-record", "16:split-record", "17:split-record", "18:split-record", "19:split-record",
				"20:split-record", "21:split-record", "22:split-record", "23:orphan-tool-result", "31:codex-compaction"}},
		{file: "cut-tail.jsonl", want: []string{"23:codex-compaction", "41:truncated-record"}},
		{file: "crash-resumed.jsonl", want: []string{"16:missing-tool-result", "17:truncated-record", "22:codex-compaction"}},
		{file: "nul-tail.jsonl", want: []string{"23:codex-compaction", "37:zero-filled"}},
		{file: "no-meta.jsonl", want: []string{"1:codex-resume-refused", "1:truncated-record", "22:codex-compaction"}, refused: true,
			contains: []string{`"failed to parse thread ID from rollout file"`}},
		{file: "not-utf8.jsonl", want: []string{"23:codex-compaction", "26:codex-resume-refused"}, refused: true,
			contains: []string{"stream did not contain valid UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := dialecttest.Read(t, corpus, tt.file)
			rep := Dialect{}.Analyze(data, analysis.Options{})
			if got := dialecttest.LineCodes(rep.Findings); !slices.Equal(got, tt.want) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
			var all strings.Builder
			for _, f := range rep.Findings {
				all.WriteString(f.Message + "\n")
			}
			for _, c := range tt.contains {
				if !strings.Contains(all.String(), c) {
					t.Errorf("no finding says %q:\n%s", c, all.String())
				}
			}
			if rep.Loads() == tt.refused {
				t.Errorf("Loads() = %v, want %v", rep.Loads(), !tt.refused)
			}
			// LoadFailure says codex's own reason, not a line it skips.
			if lf := rep.LoadFailure(); tt.refused && (lf == nil || !strings.HasPrefix(lf.Message, "codex ") || lf.Line != rep.FirstInvalidLine) {
				t.Errorf("LoadFailure() = %+v", lf)
			}
			// The stream path agrees with the document path.
			rr, err := Dialect{}.AnalyzeReader(context.Background(), bytes.NewReader(data), analysis.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(dialecttest.LineCodes(rr.Findings), dialecttest.LineCodes(rep.Findings)) {
				t.Errorf("AnalyzeReader %v, Analyze %v", dialecttest.LineCodes(rr.Findings), dialecttest.LineCodes(rep.Findings))
			}
		})
	}
}

// intact are the lines of data codex reads as records (the JSON lines that
// are whole), by line number.
func intact(data []byte) map[int][]byte {
	out := map[int][]byte{}
	s := scanFile(data)
	for _, rd := range s.reads {
		out[rd.n] = data[rd.start:rd.end]
	}
	return out
}

// TestFixAll: --fix --unsafe-fixes leaves no error (but in a file codex
// refuses as a whole, which no fix can save) and no pairing warning that
// has a fix, and every record it does not delete is in the output byte for
// byte, in order, where Origin says; --fix alone makes only the safe
// repairs.
func TestFixAll(t *testing.T) {
	tests := []struct {
		file      string
		safeFixed int      // fixes --fix alone makes
		fixed     int      // with --unsafe-fixes
		after     []string // findings left
		deleted   []int    // intact input lines the fixes delete (orphans)
		added     int      // lines the fixes write
		lost      fix.Loss
		refused   bool
	}{
		{file: "clean.jsonl", after: []string{"23:codex-compaction"}},
		{file: "missing-output.jsonl", fixed: 2, added: 2, after: []string{"23:codex-compaction"}},
		{file: "orphan-output.jsonl", fixed: 1, deleted: []int{14}, after: []string{"21:codex-compaction"}, lost: fix.Loss{Bytes: 273, Records: 1}},
		{file: "duplicate-call-id.jsonl", after: []string{"16:duplicate-call-id", "23:codex-compaction"}},
		{file: "skipped-lines.jsonl", after: []string{"4:codex-skipped-line", "24:codex-compaction", "30:codex-skipped-line", "42:codex-skipped-line", "44:codex-skipped-line"}},
		// The apply_patch call rejoined (safe): its output is no orphan.
		{file: "split-record.jsonl", safeFixed: 1, fixed: 1, added: 1, after: []string{"23:codex-compaction"}},
		{file: "cut-tail.jsonl", fixed: 1, after: []string{"23:codex-compaction"}, lost: fix.Loss{Bytes: 103, Records: 1}},
		// The cut output deleted, the record the resumed writer appended
		// on its line kept, and the call given a synthetic output.
		{file: "crash-resumed.jsonl", fixed: 2, added: 2, after: []string{"23:codex-compaction"}, lost: fix.Loss{Bytes: 40, Records: 1}},
		// The NULs and the cut local_shell_call deleted; the turn appended
		// after them (on the same line) kept.
		{file: "nul-tail.jsonl", fixed: 1, added: 1, after: []string{"23:codex-compaction"}, lost: fix.Loss{Bytes: 1094, Records: 1}},
		{file: "no-meta.jsonl", fixed: 1, added: 1, after: []string{"1:codex-resume-refused", "22:codex-compaction"}, lost: fix.Loss{Bytes: 213, Records: 1}, refused: true},
		{file: "not-utf8.jsonl", after: []string{"23:codex-compaction", "26:codex-resume-refused"}, refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := dialecttest.Read(t, corpus, tt.file)
			res, err := Dialect{}.FixAll(context.Background(), data, analysis.Options{}, true)
			if err != nil {
				t.Fatal(err)
			}
			if res.Fixed != tt.fixed || res.Lost != tt.lost {
				t.Errorf("fixed %d losing %+v, want %d losing %+v", res.Fixed, res.Lost, tt.fixed, tt.lost)
			}
			if got := dialecttest.LineCodes(res.Report.Findings); !slices.Equal(got, tt.after) {
				t.Errorf("after the fixes: %v, want %v", got, tt.after)
			}
			if e := dialecttest.Errors(res.Report.Findings); len(e) > 0 != tt.refused {
				t.Errorf("errors left: %v", dialecttest.LineCodes(e))
			}
			if res.Report.Loads() == tt.refused {
				t.Errorf("after the fixes Loads() = %v", res.Report.Loads())
			}
			safe, err := Dialect{}.FixAll(context.Background(), data, analysis.Options{}, false)
			if err != nil {
				t.Fatal(err)
			}
			if safe.Fixed != tt.safeFixed || (tt.safeFixed == 0) != bytes.Equal(safe.Data, data) {
				t.Errorf("--fix alone fixed %d, want %d", safe.Fixed, tt.safeFixed)
			}
			checkIntact(t, data, res.Data, res.Origin, tt.deleted, tt.added)
			// Fixing the output again changes nothing.
			again, err := Dialect{}.FixAll(context.Background(), res.Data, analysis.Options{}, true)
			if err != nil {
				t.Fatal(err)
			}
			if again.Fixed != 0 || !bytes.Equal(again.Data, res.Data) {
				t.Errorf("a second FixAll fixed %d more", again.Fixed)
			}
		})
	}
}

// checkIntact: every intact line of in, but the deleted ones, is a line of
// out byte for byte, in order, and origin (nil: nothing changed) maps
// out's lines to them; out has added lines more that no line of in is.
func checkIntact(t *testing.T, in, out []byte, origin []int, deleted []int, added int) {
	t.Helper()
	inLines := bytes.Split(in, []byte{'\n'})
	outLines := bytes.Split(out, []byte{'\n'})
	if origin == nil {
		if !bytes.Equal(in, out) {
			t.Fatal("the file changed but Origin is nil")
		}
		return
	}
	if len(origin) != len(lines(out)) {
		t.Fatalf("%d origins for %d lines", len(origin), len(lines(out)))
	}
	seen := map[int]bool{}
	prev, fresh := 0, 0
	for i, o := range origin {
		if o == 0 {
			fresh++
			continue
		}
		if o <= prev {
			t.Errorf("line %d comes from line %d, after line %d", i+1, o, prev)
		}
		prev = o
		if !bytes.Equal(outLines[i], inLines[o-1]) {
			t.Errorf("line %d is not line %d byte for byte", i+1, o)
		}
		seen[o] = true
	}
	if fresh != added {
		t.Errorf("%d lines written by fixes, want %d", fresh, added)
	}
	for n := range intact(in) {
		if !seen[n] && !slices.Contains(deleted, n) {
			t.Errorf("intact line %d is not in the output", n)
		}
	}
	for _, n := range deleted {
		if seen[n] {
			t.Errorf("line %d should be deleted", n)
		}
	}
}

// TestModel: the clean rollout in the engine's model: messages for the
// items sent to the model (calls as assistants declaring one call, outputs
// as tool results), units pairing parallel calls with their outputs, the
// model's usage per turn, the compaction, and token counts.
func TestModel(t *testing.T) {
	data := dialecttest.Read(t, corpus, "clean.jsonl")
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	rep := Dialect{}.Analyze(data, analysis.Options{Tokens: counter})
	var roles []string
	for _, m := range rep.Messages {
		r := m.Role.String()
		if len(m.Calls) > 0 {
			r += "(" + m.Calls[0].ID + ")"
		}
		if m.ToolCallID != "" {
			r += "(" + m.ToolCallID + ")"
		}
		roles = append(roles, fmt.Sprintf("%d:%s", m.Line, r))
	}
	want := []string{"2:user", "4:user", "7:assistant", "8:assistant(call_Qm3cA1)", "9:assistant(call_Qm3cA2)",
		"10:tool(call_Qm3cA1)", "11:tool(call_Qm3cA2)", "13:assistant", "14:assistant(call_Vb71x9)", "15:tool(call_Vb71x9)",
		"16:assistant(call_Qm3cA3)", "17:tool(call_Qm3cA3)", "20:assistant", "23:user", "26:user", "28:assistant",
		"29:assistant(call_Zr88k1)", "30:tool(call_Zr88k1)", "32:assistant",
		"35:user", "37:assistant(call_Ls0001)", "38:tool(call_Ls0001)", "39:assistant", "40:assistant"}
	if !slices.Equal(roles, want) {
		t.Errorf("messages\n%v, want\n%v", roles, want)
	}
	var us []string
	for _, u := range rep.Units {
		us = append(us, fmt.Sprintf("%d-%d", u.StartLine, u.EndLine))
	}
	// The parallel calls of lines 8-9 and their outputs are one unit.
	if wantU := "2-2 4-4 7-7 8-11 13-13 14-15 16-17 20-20 23-23 26-26 28-28 29-30 32-32 35-35 37-38 39-39 40-40"; strings.Join(us, " ") != wantU {
		t.Errorf("units %v, want %s", us, wantU)
	}
	if got := fmt.Sprint(rep.Usage); got != "[{12 9120 8064 212 128 9332 272000} {18 10344 9088 401 256 10745 272000} {31 4210 1024 188 64 4398 272000}]" {
		t.Errorf("usage %s", got)
	}
	if len(rep.Compactions) != 1 || rep.Compactions[0].Line != 23 || rep.Compactions[0].Replaced != 13 {
		t.Errorf("compactions %+v", rep.Compactions)
	}
	// Costs: each message's is the UTF-16 length of its payload's JSON;
	// the total is every message's, and what a resume sends is from the
	// last compaction on (Report.Resume, read from the units).
	var all, since, sinceTokens int64
	var sent int
	for _, m := range rep.Messages {
		all += m.Cost
		if m.Line >= 23 {
			since += m.Cost
			sinceTokens += m.Tokens
			sent++
		}
		if m.Cost <= 0 || m.Tokens <= 0 {
			t.Errorf("line %d: cost %d, tokens %d", m.Line, m.Cost, m.Tokens)
		}
	}
	rs, ok := rep.Resume()
	if want := (analysis.Resume{StartLine: 23, EndLine: 40, Messages: sent, Chars: since, Tokens: sinceTokens}); rep.TotalChars != all || !ok || rs != want {
		t.Errorf("TotalChars %d, Resume %+v %v, want %d and %+v", rep.TotalChars, rs, ok, all, want)
	}
	// The streamed report without its messages (as `budget` makes it) has
	// the same fact, from its units.
	srep, err := Dialect{}.AnalyzeReader(context.Background(), bytes.NewReader(data), analysis.Options{Tokens: counter, SkipMessages: true})
	if err != nil {
		t.Fatal(err)
	}
	if srs, ok := srep.Resume(); !ok || srs != rs || len(srep.Messages) != 0 {
		t.Errorf("streamed with SkipMessages: Resume %+v %v (%d messages), want %+v", srs, ok, len(srep.Messages), rs)
	}
	l30 := bytes.Split(data, []byte{'\n'})[29]
	payload := l30[bytes.Index(l30, []byte(`"payload":`))+len(`"payload":`) : len(l30)-1]
	i, _ := rep.MessageAtLine(30)
	if n, _ := counter.Count(string(payload)); rep.Messages[i].Cost != int64(len([]rune(string(payload)))) || rep.Messages[i].Tokens != int64(n) {
		t.Errorf("line 30: cost %d tokens %d, want %d and %d", rep.Messages[i].Cost, rep.Messages[i].Tokens, len(payload), n)
	}
}

// TestSeverities: every finding the dialect makes has its code's severity
// from the registry, and every code of the dialect is made by the corpus.
func TestSeverities(t *testing.T) {
	seen := map[string]bool{}
	files, err := filepath.Glob(filepath.Join(corpus, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatal("no corpus", err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range (Dialect{}).Analyze(data, analysis.Options{}).Findings {
			seen[f.Code] = true
			if r, _, _ := analysis.RuleFor(f.Code); f.Severity != r.SeverityIn("codex") {
				t.Errorf("%s: %d:%s has severity %s, the registry %s", filepath.Base(name), f.Line, f.Code, f.Severity, r.SeverityIn("codex"))
			}
		}
	}
	for _, c := range []string{analysis.CodeCodexResumeRefused, analysis.CodeCodexSkippedLine, analysis.CodeCodexCompaction,
		analysis.CodeOrphanToolResult, analysis.CodeMissingToolResult, analysis.CodeDuplicateCallID,
		analysis.CodeTruncatedRecord, analysis.CodeSplitRecord, analysis.CodeZeroFilled} {
		if !seen[c] {
			t.Errorf("the corpus makes no %s finding", c)
		}
	}
}

// TestFixAllPastTheFindingCap: FixAll repairs every finding, not only
// those a MaxFindingsPerCode report keeps, and returns the capped report.
func TestFixAllPastTheFindingCap(t *testing.T) {
	data := dialecttest.Read(t, corpus, "missing-output.jsonl")
	opts := analysis.Options{MaxFindingsPerCode: 1}
	if rep := (Dialect{}).Analyze(data, opts); len(rep.Omitted) != 1 || rep.Omitted[0].N != 1 {
		t.Fatalf("omitted %+v", rep.Omitted)
	}
	res, err := Dialect{}.FixAll(context.Background(), data, opts, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fixed != 2 || len(res.Report.Omitted) != 0 {
		t.Errorf("fixed %d, omitted %+v", res.Fixed, res.Report.Omitted)
	}
}

// TestBudget: a budget cuts the codex history by its units, parallel calls
// with their outputs, as the engine cuts the runtime's.
func TestBudget(t *testing.T) {
	data := dialecttest.Read(t, corpus, "clean.jsonl")
	full := Dialect{}.Analyze(data, analysis.Options{})
	var newest int64
	for _, u := range full.Units[len(full.Units)-6:] {
		newest += u.Chars
	}
	rep := Dialect{}.Analyze(data, analysis.Options{Budget: newest})
	if rep.Cutoff == nil || rep.Cutoff.KeptUnits != 6 || rep.Cutoff.FirstKeptLine != full.Units[len(full.Units)-6].StartLine {
		t.Fatalf("cutoff %+v (units %+v)", rep.Cutoff, full.Units)
	}
	if !slices.Contains(dialecttest.LineCodes(rep.Findings), fmt.Sprintf("%d:budget-cutoff", rep.Cutoff.FirstKeptLine)) {
		t.Errorf("findings %v", dialecttest.LineCodes(rep.Findings))
	}
	// A unit never parts a call from its output: the parallel calls of
	// lines 8-9 and their outputs 10-11 are kept or dropped together.
	for _, u := range full.Units {
		if u.StartLine <= 9 && u.EndLine >= 8 && (u.StartLine != 8 || u.EndLine != 11) {
			t.Errorf("unit %d-%d parts lines 8-11", u.StartLine, u.EndLine)
		}
	}
	if rep := (Dialect{}).Analyze(data, analysis.Options{Budget: 10}); rep.CutoffErr == nil {
		t.Error("no error for a budget smaller than the newest unit")
	}
}
