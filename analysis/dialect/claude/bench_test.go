package claude

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/sessionls/sessionls/analysis"
)

// benchTranscript is a Claude Code transcript of about 32 MiB: rounds of
// a prompt, a streamed response (text, then a call), the call's result (a
// tool output of a few KiB) and an answer, chained by parentUuid.
var benchTranscript = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	parent := "null"
	out := strings.Repeat("ok  \tgithub.com/shop/cart\t0.012s — “tests” passed ✓\n", 60)
	for i := 0; b.Len() < 32<<20; i++ {
		rec := func(typ, uuid, msg string) {
			fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"/home/dev/shop","sessionId":"5e55","version":"2.1.121","gitBranch":"main","type":%q,"message":%s,"uuid":%q,"timestamp":"2026-03-02T09:14:05.000Z"}`+"\n", parent, typ, msg, uuid)
			parent = `"` + uuid + `"`
		}
		usage := `"usage":{"input_tokens":3,"cache_creation_input_tokens":120,"cache_read_input_tokens":18000,"output_tokens":90}`
		rec("user", fmt.Sprintf("u%d", i), fmt.Sprintf(`{"role":"user","content":"Run the tests of package %d and tell me what fails."}`, i))
		rec("assistant", fmt.Sprintf("a%d", i), fmt.Sprintf(`{"id":"msg_%d","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Running them now."}],%s}`, i, usage))
		rec("assistant", fmt.Sprintf("b%d", i), fmt.Sprintf(`{"id":"msg_%d","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"go test ./pkg%d/..."}}],%s}`, i, i, i, usage))
		rec("user", fmt.Sprintf("r%d", i), fmt.Sprintf(`{"role":"user","content":[{"tool_use_id":"toolu_%d","type":"tool_result","content":%q}]}`, i, out))
		rec("assistant", fmt.Sprintf("c%d", i), fmt.Sprintf(`{"id":"msg_%dc","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"All %d packages pass."}],%s}`, i, i, usage))
	}
	return b.Bytes()
})

func BenchmarkAnalyzeReader(b *testing.B) {
	data := benchTranscript()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rep, err := Dialect{}.AnalyzeReader(context.Background(), bytes.NewReader(data), analysis.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Findings) != 0 || len(rep.Messages) == 0 {
			b.Fatalf("%d findings, %d messages", len(rep.Findings), len(rep.Messages))
		}
	}
}

// BenchmarkSeedSameBytes is the engine's seed path on the same bytes (every
// line an invalid record), for the ratio.
func BenchmarkSeedSameBytes(b *testing.B) {
	data := benchTranscript()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := analysis.AnalyzeReader(context.Background(), bytes.NewReader(data), analysis.Options{MaxFindingsPerCode: 100}); err != nil {
			b.Fatal(err)
		}
	}
}
