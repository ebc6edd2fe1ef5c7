package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect/dialecttest"
	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/randjsonl/oracle"
)

// TestInterleaved: two writers' appends over 512 KiB, made afresh by node
// (gen.mjs), are named as interleaved, rejoined byte for byte by the safe
// fixes, and then the session has no finding: the result the interleaving
// hid answers its call again.
func TestInterleaved(t *testing.T) {
	data := dialecttest.Generate(t, corpus, "interleaved.jsonl", "interleaved")
	rep := Dialect{}.Analyze(data, analysis.Options{})
	if len(dialecttest.OfCode(rep.Findings, analysis.CodeInterleavedRecord)) == 0 {
		t.Fatalf("no interleaved-record finding: %v", dialecttest.LineCodes(rep.Findings))
	}
	res, err := Dialect{}.FixAll(context.Background(), data, analysis.Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := dialecttest.LineCodes(res.Report.Findings); len(got) != 0 {
		t.Errorf("after the safe fixes: %v", got)
	}
	if len(res.Data) != len(data) {
		t.Errorf("rejoining changed the size: %d → %d bytes", len(data), len(res.Data))
	}
}

// TestCostsMatchNode: a record's cost is node's
// JSON.stringify({role, content}).length for its message, exactly (the
// sum of the messages the record becomes), on every record of the clean
// transcript and on hostile contents (lone surrogates, numbers, key
// order, deep nesting).
func TestCostsMatchNode(t *testing.T) {
	node := oracle.Node(t)
	data := dialecttest.Read(t, corpus, "clean.jsonl")
	hostile := []string{
		`{"type":"user","uuid":"h1","parentUuid":null,"message":{"role":"user","content":"\ud800 lone, \u2028, é, 😀, \"q\""}}`,
		`{"type":"assistant","uuid":"h2","parentUuid":"h1","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":{"b":1e400,"a":-0,"2":0.1,"1":[1E3,1.50],"b":2}}]}}`,
		`{"type":"user","uuid":"h3","parentUuid":"h2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"}]},{"type":"text","text":"and more"}]}}`,
		`{"type":"assistant","uuid":"h4","parentUuid":"h3","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("[", 0) + `deep"},{"type":"x","v":` + strings.Repeat("[", 3000) + strings.Repeat("]", 3000) + `}]}}`,
	}
	data = append(data, []byte(strings.Join(hostile, "\n")+"\n")...)
	// Every record on its own chain, so that each is a message: rebuild
	// the file as separate one-record transcripts.
	var lines [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(l) > 0 {
			lines = append(lines, l)
		}
	}
	script := `const fs = require("node:fs"); const out = [];
for (const l of fs.readFileSync(0, "utf8").split("\n").filter(Boolean)) {
  const r = JSON.parse(l); const m = r.message;
  out.push(m && (r.type === "user" || r.type === "assistant") ? JSON.stringify({ role: m.role, content: m.content }).length : -1);
}
console.log(JSON.stringify(out));`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = bytes.NewReader(bytes.Join(lines, []byte("\n")))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var want []int64
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for i, l := range lines {
		e := decode(l, nil, nil)
		if want[i] < 0 {
			if e.api {
				t.Errorf("line %d: an API message node does not see", i+1)
			}
			continue
		}
		if !e.api || e.cost != want[i] {
			t.Errorf("line %d: cost %d (api %v), node %d", i+1, e.cost, e.api, want[i])
		}
		var sum int64
		for _, b := range e.blocks {
			if b.typ == toolResult {
				sum += b.cost
			}
		}
		if sum > e.cost {
			t.Errorf("line %d: its results cost more than it", i+1)
		}
		checked++
	}
	if checked < 15 {
		t.Errorf("only %d records checked", checked)
	}
}

// TestCleanModel: the clean transcript's conversation is the chain from
// its last message back to the compaction boundary (the sidechain, the
// pre-compaction part, the summary, the unknown record type left out);
// the streamed response's records, the results and the usage are where
// Claude Code wrote them.
func TestCleanModel(t *testing.T) {
	data := dialecttest.Read(t, corpus, "clean.jsonl")
	counter, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	rep := Dialect{}.Analyze(data, analysis.Options{Tokens: counter, Budget: 2000})
	var roles []string
	for _, m := range rep.Messages {
		roles = append(roles, m.Role.String())
	}
	if got := strings.Join(roles, " "); got != "user user assistant assistant tool tool assistant" {
		t.Errorf("messages %s", got)
	}
	if i, c, ok := rep.AnsweredCall(5); !ok || rep.Messages[i].Calls[c].Name != "Write" {
		t.Errorf("the second result answers %d/%d (%v)", i, c, ok)
	}
	if len(rep.Compactions) != 1 || rep.Compactions[0].Line != 21 || rep.Compactions[0].Chars == 0 {
		t.Errorf("compactions %+v", rep.Compactions)
	}
	// A resume sends the conversation from the boundary on: the report's
	// messages, every one of them (Replaced 0), from the summary (line 22)
	// to the last (line 29); from the units alone (SkipMessages) as well.
	want := analysis.Resume{StartLine: 22, EndLine: 29, Messages: 7, Chars: rep.TotalChars, Tokens: rep.TotalTokens}
	if rs, ok := rep.Resume(); !ok || rs != want || rep.Compactions[0].Replaced != 0 || rep.TotalTokens == 0 {
		t.Errorf("Resume %+v %v, want %+v", rs, ok, want)
	}
	srep, err := Dialect{}.AnalyzeReader(context.Background(), bytes.NewReader(data), analysis.Options{Tokens: counter, SkipMessages: true})
	if err != nil {
		t.Fatal(err)
	}
	if rs, ok := srep.Resume(); !ok || rs != want || len(srep.Messages) != 0 {
		t.Errorf("streamed with SkipMessages: Resume %+v %v (%d messages), want %+v", rs, ok, len(srep.Messages), want)
	}
	// A transcript never compacted has no resume fact (a resume sends
	// every message).
	if rs, ok := (Dialect{}).Analyze(dialecttest.Read(t, corpus, "missing-result-tail.jsonl"), analysis.Options{}).Resume(); ok {
		t.Errorf("missing-result-tail.jsonl (no compaction): Resume %+v, true", rs)
	}
	// Six responses on the main conversation (not the subagent's), two of
	// them after the boundary.
	var active []analysis.Usage
	for _, u := range rep.Usage {
		if u.Line > 21 {
			active = append(active, u)
		}
	}
	if len(rep.Usage) != 6 || len(active) != 2 || active[0].ContextTokens != 9003 || active[1].ContextTokens != 9502 ||
		active[1].OutputTokens != 40 || active[1].CachedInputTokens != 9100 || active[1].InputTokens != 402 {
		t.Errorf("usage %+v", rep.Usage)
	}
	if _, ok := rep.MessageAtLine(active[0].Line); !ok {
		t.Errorf("usage at line %d is on no message", active[0].Line)
	}
	if rep.TotalTokens == 0 || rep.TokensErr != nil || rep.Cutoff == nil {
		t.Errorf("tokens %d (%v), cutoff %+v (%v)", rep.TotalTokens, rep.TokensErr, rep.Cutoff, rep.CutoffErr)
	}
	var sum int64
	for _, m := range rep.Messages {
		sum += m.Tokens
	}
	if sum != rep.TotalTokens {
		t.Errorf("tokens %d, sum %d", rep.TotalTokens, sum)
	}
}

// TestSniff: Claude Code's records are claimed, the runtime's messages
// and Codex CLI's rollout lines are not.
func TestSniff(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{`{"type":"summary","summary":"x","leafUuid":"a"}`, true},
		{`{"type":"file-history-snapshot","messageId":"m","snapshot":{},"isSnapshotUpdate":false}`, true},
		{`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u","sessionId":"s"}`, true},
		{`{"type":"queue-operation","operation":"enqueue","sessionId":"s"}`, true},
		{`{"type":"permission-mode","permissionMode":"default"}`, true},
		{`{"role":"user","content":"hi"}`, false},
		{`{"role":"user","content":"hi","type":"user","uuid":"u"}`, false},
		{`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}`, false},
		{`{"type":"response_item","payload":{"type":"message"},"sessionId":"x"}`, false},
		{`{"type":"user"}`, false},
		{`[1,2]`, false},
		{`"x"`, false},
	}
	for _, tc := range tests {
		if got := (Dialect{}).Sniff([]byte(tc.line)); got != tc.want {
			t.Errorf("Sniff(%s) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

func TestContextWindow(t *testing.T) {
	for model, want := range map[string]int64{"claude-sonnet-4-5-20250929": 200_000, "claude-opus-4-6[1m]": 1_000_000, "": 200_000} {
		if got := ContextWindow(model); got != want {
			t.Errorf("ContextWindow(%q) = %d, want %d", model, got, want)
		}
	}
}

// TestSubagentTranscript: a subagent's own transcript, every record a
// sidechain, is a conversation of its own, checked like the main one.
func TestSubagentTranscript(t *testing.T) {
	lines := []string{
		`{"parentUuid":null,"isSidechain":true,"agentId":"a1","type":"user","message":{"role":"user","content":"Find the callers."},"uuid":"s1","sessionId":"p"}`,
		`{"parentUuid":"s1","isSidechain":true,"agentId":"a1","type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Grep","input":{}}]},"uuid":"s2","sessionId":"p"}`,
	}
	rep := Dialect{}.Analyze([]byte(strings.Join(lines, "\n")+"\n"), analysis.Options{})
	if got := dialecttest.LineCodes(rep.Findings); len(got) != 1 || got[0] != "2:missing-tool-result" || len(rep.Messages) != 2 {
		t.Errorf("findings %v, %d messages", got, len(rep.Messages))
	}
}

// TestSyntheticNoUsage: Claude Code's own notices (model "<synthetic>")
// report no usage.
func TestSyntheticNoUsage(t *testing.T) {
	lines := []string{
		`{"parentUuid":null,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1"}`,
		`{"parentUuid":"u1","type":"assistant","message":{"id":"d5ac","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: Request was aborted."}],"usage":{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}},"isApiErrorMessage":true,"uuid":"a1"}`,
		`{"parentUuid":"a1","type":"user","message":{"role":"user","content":"again"},"uuid":"u2"}`,
		`{"parentUuid":"u2","type":"assistant","message":{"id":"msg_1","model":"claude-sonnet-4-5","role":"assistant","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":5,"output_tokens":1,"cache_creation_input_tokens":100,"cache_read_input_tokens":0}},"uuid":"a2"}`,
	}
	rep := Dialect{}.Analyze([]byte(strings.Join(lines, "\n")), analysis.Options{})
	if len(rep.Usage) != 1 || rep.Usage[0].Line != 4 || rep.Usage[0].ContextTokens != 105 || rep.Usage[0].ContextWindow != 200_000 {
		t.Errorf("usage %+v", rep.Usage)
	}
	if len(rep.Findings) != 0 || len(rep.Messages) != 4 {
		t.Errorf("findings %v, %d messages", dialecttest.LineCodes(rep.Findings), len(rep.Messages))
	}
}

// TestRelink: a record whose parent is lost is re-linked to the record
// written before it, but never to one of its own descendants (a loop),
// and not while a line JSON.parse refuses may hold the parent.
func TestRelink(t *testing.T) {
	u := func(uuid, parent, text string) string {
		return `{"parentUuid":` + parent + `,"type":"user","message":{"role":"user","content":"` + text + `"},"uuid":"` + uuid + `"}`
	}
	a := func(uuid, parent string) string {
		return `{"parentUuid":"` + parent + `","type":"assistant","message":{"id":"m` + uuid + `","role":"assistant","content":[{"type":"text","text":"ok"}]},"uuid":"` + uuid + `"}`
	}
	tests := []struct {
		name  string
		lines []string
		fixes int
	}{
		{"relinked", []string{u("u1", "null", "a"), a("a1", "u1"), u("u2", `"lost"`, "b"), a("a2", "u2")}, 1},
		{"the record before descends from it", []string{u("u1", "null", "a"), a("a2", "u2"), u("u2", `"lost"`, "b")}, 0},
		{"a refused line may hold the parent", []string{u("u1", "null", "a"), `{"parentUuid":"u1","uuid":"lost","type":"ass`, u("u2", `"lost"`, "b")}, 0},
	}
	for _, tc := range tests {
		data := []byte(strings.Join(tc.lines, "\n") + "\n")
		rep := Dialect{}.Analyze(data, analysis.Options{})
		n := 0
		for _, f := range (Dialect{}).Plan(data, rep.Findings) {
			if f.Code == analysis.CodeBrokenParentChain {
				n++
			}
		}
		if n != tc.fixes {
			t.Errorf("%s: %d re-link fixes, want %d (findings %v)", tc.name, n, tc.fixes, dialecttest.LineCodes(rep.Findings))
		}
	}
}
