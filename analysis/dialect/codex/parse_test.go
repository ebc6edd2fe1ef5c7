package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/sessionls/sessionls/internal/randjsonl"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect/dialecttest"
)

// TestSerdeRejects: where serde_json parts from JSON.parse, at the edges.
func TestSerdeRejects(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		l      string
		reject bool
	}{
		{nest(127), false},
		{nest(128), true},
		{`{"a":` + nest(126) + `}`, false},
		{`{"a":` + nest(127) + `}`, true},
		{`"\ud83e\udd16"`, false},
		{`"\ud83e"`, true},
		{`"\udd16"`, true},
		{`"\\ud83e"`, false}, // an escaped backslash, then text
		{`"\ud83e\u0041"`, true},
		{`[1e308,-1.7976931348623157e308]`, false},
		{`[1e309]`, true},
		{`[-1e400]`, true},
		{`[1e-400]`, false}, // underflows to 0 in both
		// Finite to JSON.parse and strconv; serde_json's product
		// 17976931348623158 × 1e292 rounds to infinity (its oracle agrees).
		{`[1.7976931348623158e308]`, true},
		{`[1.7976931348623157e308]`, false},
		{`[0e999999999999]`, false}, // exponent overflow with a zero significand
		{`[1e99999999999]`, true},
		{`[1e-99999999999]`, false},
		{`[` + strings.Repeat("9", 400) + `]`, true},
		{`[` + strings.Repeat("9", 300) + `]`, false},
		{`{"s":"[[[[", "n":1}`, false},
	}
	for _, tt := range tests {
		if got := serdeRejects([]byte(tt.l)) != ""; got != tt.reject {
			t.Errorf("%.60s: rejected %v, want %v", tt.l, got, tt.reject)
		}
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		l    string
		want bool
	}{
		{`{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"x"}}`, true},
		{`{"timestamp":"t","type":"response_item","payload":{"type":"message"}}`, true},
		{`{"timestamp":"t","type":"workspace_snapshot","payload":{}}`, false},
		{`{"timestamp":"t","type":"world_state","payload":{}}`, false}, // known to newer codex, but never a first line
		{`{"role":"user","content":"hi"}`, false},
		{`{"role":"user","content":"hi","timestamp":"t","type":"event_msg","payload":{}}`, false},
		{`{"type":"user","uuid":"u","message":{"role":"user","content":"hi"}}`, false},
		{`{"timestamp":1,"type":"event_msg","payload":{}}`, false},
		{`not json`, false},
	}
	for _, tt := range tests {
		if got := (Dialect{}).Sniff([]byte(tt.l)); got != tt.want {
			t.Errorf("Sniff(%s) = %v", tt.l, got)
		}
	}
}

// TestHostile: random damage to a rollout never panics, and a plan's fixes
// apply to the file they were made for.
func TestHostile(t *testing.T) {
	base := dialecttest.Read(t, corpus, "clean.jsonl")
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 300; i++ {
		data := append([]byte(nil), base...)
		for k := r.IntN(6); k >= 0; k-- {
			p := r.IntN(len(data))
			switch r.IntN(4) {
			case 0:
				data[p] = byte(r.IntN(256))
			case 1:
				data = append(data[:p], data[min(len(data), p+r.IntN(400)):]...)
			case 2:
				data = append(data[:p:p], append([]byte("\n"), data[p:]...)...)
			default:
				data = data[:p]
			}
			if len(data) == 0 {
				break
			}
		}
		rep := Dialect{}.Analyze(data, analysis.Options{})
		// The stream path (here one byte at a time) makes the same report.
		rr, err := Dialect{}.AnalyzeReader(context.Background(), iotest.OneByteReader(bytes.NewReader(data)), analysis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(rr.Findings, rr.Messages, rr.Units, rr.Lines, rr.Width16, rr.TotalChars, rr.FirstInvalidLine) !=
			fmt.Sprint(rep.Findings, rep.Messages, rep.Units, rep.Lines, rep.Width16, rep.TotalChars, rep.FirstInvalidLine) {
			t.Fatalf("AnalyzeReader and Analyze differ on %q", data)
		}
		for _, f := range rep.Findings {
			if f.Line < 1 || f.Line > max(1, rep.Lines) {
				t.Fatalf("finding at line %d of %d", f.Line, rep.Lines)
			}
		}
		for _, f := range (Dialect{}).Plan(data, rep.Findings) {
			for _, e := range f.Edits {
				if e.Start < 0 || e.End > len(data) || e.Start > e.End {
					t.Fatalf("edit %+v outside %d bytes", e, len(data))
				}
			}
		}
		res, err := Dialect{}.FixAll(context.Background(), data, analysis.Options{}, true)
		if err != nil {
			t.Fatal(err)
		}
		if res.Origin != nil && len(res.Origin) != len(lines(res.Data)) {
			t.Fatalf("%d origins for %d lines", len(res.Origin), len(lines(res.Data)))
		}
	}
}

func TestAnalyzeReaderCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Dialect{}).AnalyzeReader(ctx, bytes.NewReader(dialecttest.Read(t, corpus, "clean.jsonl")), analysis.Options{}); err == nil {
		t.Fatal("no error from a cancelled context")
	}
	if _, err := (Dialect{}).FixAll(ctx, dialecttest.Read(t, corpus, "missing-output.jsonl"), analysis.Options{}, true); err == nil {
		t.Fatal("no error from FixAll with a cancelled context")
	}
}

func TestIsUUID(t *testing.T) {
	for s, want := range map[string]bool{
		"0199d7a4-3c1e-7b52-9f0e-5a1c2b3d4e5f":          true,
		"0199D7A4-3C1E-7B52-9F0E-5A1C2B3D4E5F":          true,
		"0199d7a43c1e7b529f0e5a1c2b3d4e5f":              true,
		"{0199d7a4-3c1e-7b52-9f0e-5a1c2b3d4e5f}":        true,
		"urn:uuid:0199d7a4-3c1e-7b52-9f0e-5a1c2b3d4e5f": true,
		"0199d7a4-3c1e-7b52-9f0e-5a1c2b3d4e5":           false,
		"0199d7a4_3c1e-7b52-9f0e-5a1c2b3d4e5f":          false,
		"0199d7a4-3c1e-7b52-9f0e-5a1c2b3d4e5g":          false,
		"session-1":                                     false,
		"":                                              false,
	} {
		if isUUID(s) != want {
			t.Errorf("isUUID(%q) = %v", s, !want)
		}
	}
}

// TestNewerCodexLines: what newer codex versions write (an ordinal on
// every line, metadata beside a response item's payload, item types such
// as world_state, an output object) is read without a finding.
func TestNewerCodexLines(t *testing.T) {
	data := []byte(`{"timestamp":"2026-09-17T08:22:53.411Z","ordinal":0,"type":"session_meta","payload":{"session_id":"01a0ae76-2436-7590-9a11-216f21269bb4","id":"01a0ae76-2436-7590-9a11-216f21269bb4","timestamp":"2026-09-17T08:22:53.242Z","cwd":"/w","originator":"codex_exec","cli_version":"0.149.1","history_mode":"paginated"}}
{"timestamp":"2026-09-17T08:22:53.412Z","ordinal":1,"type":"world_state","payload":{"full":true,"state":{}}}
{"timestamp":"2026-09-17T08:22:53.506Z","ordinal":2,"type":"turn_context","payload":{"turn_id":"t1","cwd":"/w","model":"gpt-5.5","approval_policy":"never"}}
{"timestamp":"2026-09-17T08:22:53.537Z","ordinal":3,"type":"response_item","payload":{"type":"message","id":"msg_1","role":"developer","content":[{"type":"input_text","text":"<permissions>"}]},"metadata":{"user_input_order":1}}
{"timestamp":"2026-09-17T08:22:54.000Z","ordinal":4,"type":"response_item","payload":{"type":"function_call","name":"exec_command","namespace":"shell","arguments":"{\"cmd\":\"ls\"}","call_id":"call_1"}}
{"timestamp":"2026-09-17T08:22:55.000Z","ordinal":5,"type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":{"content":"a\nb\n"}}}
{"timestamp":"2026-09-17T08:22:55.100Z","ordinal":6,"type":"token_usage_record","payload":{"thread_id":"x","turn_id":"t1"}}
{"timestamp":"2026-09-17T08:22:55.200Z","ordinal":7,"type":"response_item","payload":{"type":"tool_search_call","call_id":"ts_1","execution":"client","arguments":{"query":"x"}}}
{"timestamp":"2026-09-17T08:22:55.300Z","ordinal":8,"type":"response_item","payload":{"type":"tool_search_output","call_id":"ts_1","status":"completed","execution":"client","tools":[]}}
{"timestamp":"2026-09-17T08:22:55.400Z","ordinal":9,"type":"response_item","payload":{"type":"tool_search_output","status":"completed","execution":"server","tools":[]}}
{"timestamp":"2026-09-17T08:22:56.000Z","ordinal":10,"type":"event_msg","payload":{"type":"task_complete","turn_id":"t1"}}
`)
	rep := Dialect{}.Analyze(data, analysis.Options{})
	if len(rep.Findings) != 0 || !rep.Loads() {
		t.Errorf("findings %v", dialecttest.LineCodes(rep.Findings))
	}
	if len(rep.Messages) != 5 {
		t.Errorf("%d messages, want the developer message, the calls and their outputs", len(rep.Messages))
	}
	// Without its output, the client tool search is a missing result; the
	// fix adds the empty client result codex's normalization would send.
	cut := bytes.Replace(data, []byte(`{"timestamp":"2026-09-17T08:22:55.300Z","ordinal":8,"type":"response_item","payload":{"type":"tool_search_output","call_id":"ts_1","status":"completed","execution":"client","tools":[]}}`+"\n"), nil, 1)
	if got := dialecttest.LineCodes((Dialect{}).Analyze(cut, analysis.Options{}).Findings); fmt.Sprint(got) != "[8:missing-tool-result]" {
		t.Fatalf("findings %v", got)
	}
	res, err := Dialect{}.FixAll(context.Background(), cut, analysis.Options{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fixed != 1 || len(res.Report.Findings) != 0 || !bytes.Contains(res.Data, []byte(`"type":"tool_search_output","call_id":"ts_1","status":"completed","execution":"client","tools":[]`)) {
		t.Errorf("fixed %d, left %v:\n%s", res.Fixed, dialecttest.LineCodes(res.Report.Findings), res.Data)
	}
}

// TestObjectScanner: the scan that reads a record's members (object,
// elements) gives what encoding/json gives, member for member, on random
// hostile lines that are valid JSON objects (internal/randjsonl) and on the
// corpus.
func TestObjectScanner(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	var ls [][]byte
	for len(ls) < 5000 {
		l := randjsonl.Line(r)
		if json.Valid(l) && utf8.Valid(l) {
			ls = append(ls, l)
		}
	}
	ls = append(ls, bytes.Split(dialecttest.Read(t, corpus, "clean.jsonl"), []byte{'\n'})...)
	objects := 0
	for _, l := range ls {
		if !json.Valid(l) {
			continue
		}
		var want map[string]json.RawMessage
		lead := bytes.TrimLeft(l, " \t\r\n")
		isObj := len(lead) > 0 && lead[0] == '{' && json.Unmarshal(l, &want) == nil
		got, ok := object(l)
		if ok != isObj {
			t.Fatalf("%.200q: object ok %v, encoding/json %v", l, ok, isObj)
		}
		if !ok {
			continue
		}
		objects++
		if len(got) != len(want) {
			t.Fatalf("%.200q: %d members, encoding/json %d", l, len(got), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Fatalf("%.200q: member %q = %.80s, encoding/json %.80s", l, k, got[k], v)
			}
			if len(v) > 0 && v[0] == '[' {
				var wantEls []json.RawMessage
				json.Unmarshal(v, &wantEls)
				els, ok := elements(v)
				if !ok || len(els) != len(wantEls) {
					t.Fatalf("%.200q: elements of %q: %d, encoding/json %d", l, k, len(els), len(wantEls))
				}
				for i := range els {
					if !bytes.Equal(els[i], wantEls[i]) {
						t.Fatalf("%.200q: element %d of %q differs", l, i, k)
					}
				}
			}
		}
	}
	if objects < 1000 {
		t.Errorf("only %d objects among the lines", objects)
	}
}

// FuzzDecodeLine: any line, decoded as codex's loader reads it, never
// panics, and a line it reads has a record kind.
func FuzzDecodeLine(f *testing.F) {
	for _, l := range bytes.Split(dialecttest.Read(f, corpus, "clean.jsonl"), []byte{'\n'}) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, l []byte) {
		fa := decodeLine(l, nil, false)
		_ = serdeRejects(l)
		if fa.skip == "" && !fa.blank && !fa.jsonBad && fa.badUTF8 < 0 && fa.rec.typ == "" {
			t.Fatalf("%q read with no type", l)
		}
	})
}

// TestWhitespaceLines: a whitespace-only line between records is skipped by
// codex (no finding), but one that is a piece of a record split by raw
// newlines is named with it, and the split is rejoined.
func TestWhitespaceLines(t *testing.T) {
	meta := `{"timestamp":"t","type":"session_meta","payload":{"id":"0199d7a4-3c1e-7b52-9f0e-5a1c2b3d4e5f","timestamp":"t","cwd":"/w","originator":"o","cli_version":"1"}}`
	user := `{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"a` + "\n   \n" + `b"}]}}`
	data := []byte(meta + "\n \t \n" + user + "\n")
	rep := Dialect{}.Analyze(data, analysis.Options{})
	var lines []int
	for _, f := range rep.Findings {
		if !analysis.IsRefusal(f.Code) {
			t.Errorf("%d:%s", f.Line, f.Code)
		}
		lines = append(lines, f.Line)
	}
	// (The engine names the pieces by its own causes; the whitespace-only
	// piece in the middle keeps it from saying split-record today.)
	if fmt.Sprint(lines) != "[3 4 5]" {
		t.Fatalf("findings %v", dialecttest.LineCodes(rep.Findings))
	}
	res, err := Dialect{}.FixAll(context.Background(), data, analysis.Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fixed != 1 || len(res.Report.Findings) != 0 || len(res.Report.Messages) != 1 {
		t.Errorf("fixed %d, left %v, %d messages:\n%s", res.Fixed, dialecttest.LineCodes(res.Report.Findings), len(res.Report.Messages), res.Data)
	}
}
