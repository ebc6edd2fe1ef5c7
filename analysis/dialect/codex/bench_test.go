package codex

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
)

// rollout makes a rollout of turns turns like the corpus's: a user
// message, reasoning, two parallel shell calls with ~2 KB outputs, an
// assistant message and a token count each.
func rollout(turns int) []byte {
	var b bytes.Buffer
	ts := `"timestamp":"2026-11-30T09:14:02.118Z"`
	fmt.Fprintf(&b, `{%s,"type":"session_meta","payload":{"id":"0199d7a4-3c1e-7b52-9f0e-5a1c2b3d4e5f","timestamp":"2026-11-30T09:14:02.118Z","cwd":"/home/ada/src/tally","originator":"codex_cli_rs","cli_version":"0.63.0"}}`+"\n", ts)
	out := strings.Repeat(`src/parse.rs:12:pub fn parse_amount(s: &str) -> Result<Cents, ParseError> {\n`, 26)
	for i := range turns {
		fmt.Fprintf(&b, `{%s,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Turn %d: find why parse_amount rounds 19.99 down, and fix it."}]}}`+"\n", ts, i)
		fmt.Fprintf(&b, `{%s,"type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"**Looking** at the parser"}],"content":null,"encrypted_content":"gAAAAABpK3Qx"}}`+"\n", ts)
		for k := range 2 {
			fmt.Fprintf(&b, `{%s,"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"rg -n parse_amount\"]}","call_id":"call_%d_%d"}}`+"\n", ts, i, k)
		}
		for k := range 2 {
			fmt.Fprintf(&b, `{%s,"type":"response_item","payload":{"type":"function_call_output","call_id":"call_%d_%d","output":"%s"}}`+"\n", ts, i, k, out)
		}
		fmt.Fprintf(&b, `{%s,"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Fixed: integer cents."}]}}`+"\n", ts)
		fmt.Fprintf(&b, `{%s,"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":9120,"cached_input_tokens":8064,"output_tokens":212,"reasoning_output_tokens":128,"total_tokens":9332},"model_context_window":272000}}}`+"\n", ts)
	}
	return b.Bytes()
}

func BenchmarkAnalyze(b *testing.B) {
	data := rollout(2000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		Dialect{}.Analyze(data, analysis.Options{})
	}
}

func BenchmarkAnalyzeReader(b *testing.B) {
	data := rollout(2000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := (Dialect{}).AnalyzeReader(context.Background(), bytes.NewReader(data), analysis.Options{SkipMessages: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStreamMemory checks a large file as the CLI does, from disk, with
// SkipMessages: run with SESSIONLS_CODEX_RSS=N (MB) under /usr/bin/time
// -v to see the peak RSS; it logs the heap's peak as Go counts it.
func TestStreamMemory(t *testing.T) {
	mb := os.Getenv("SESSIONLS_CODEX_RSS")
	if mb == "" {
		t.Skip("set SESSIONLS_CODEX_RSS=<MB> to measure")
	}
	var n int
	fmt.Sscan(mb, &n)
	path := t.TempDir() + "/big.jsonl"
	one := rollout(1000)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for written := 0; written < n<<20; written += len(one) {
		f.Write(one)
	}
	f.Close()
	one = nil
	runtime.GC()
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rep, err := Dialect{}.AnalyzeReader(context.Background(), r, analysis.Options{SkipMessages: true})
	if err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("%d lines, %d units, %d findings; heap in use %d MB, sys %d MB", rep.Lines, len(rep.Units), len(rep.Findings), ms.HeapInuse>>20, ms.Sys>>20)
}
