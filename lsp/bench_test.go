package lsp

import (
	"bytes"
	"encoding/json"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sessionls/sessionls/internal/transcript"
	"go.lsp.dev/protocol"
)

// benchSize is the transcript size: 50 MB, or SESSIONLS_BENCH_MB.
func benchSize(b *testing.B) int64 {
	size := int64(50 << 20)
	if v := os.Getenv("SESSIONLS_BENCH_MB"); v != "" {
		mb, err := strconv.Atoi(v)
		if err != nil {
			b.Fatalf("SESSIONLS_BENCH_MB: %v", err)
		}
		size = int64(mb) << 20
	}
	return size
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func median(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}

// BenchmarkLargeSession opens a realistic 50 MB transcript, then edits one
// line in its middle over and over (inserting a character into a content
// string, then deleting it). It reports the median time from sending
// didChange to receiving its publishDiagnostics, the median codeLens
// response time (reply received; also its first byte, and the end of the
// test client's decoding),
// and the server's heap over the document's size. Targets: ≤ 10 ms,
// ≤ 50 ms, ≤ 3×. There are no timing assertions: these are measurements.
//
//	go test -run XXX -bench LargeSession -benchtime 20x ./lsp
//
// BenchmarkLargeSessionTokens is the same with the tokens setting on: the
// codeLens request must cost what it does without, and it also reports
// the median codeLens/resolve of the lens of the edited unit (counting its
// tokens, the cache emptied by the edit for that line).
func BenchmarkLargeSession(b *testing.B) { largeSession(b, false) }

func BenchmarkLargeSessionTokens(b *testing.B) { largeSession(b, true) }

func largeSession(b *testing.B, withTokens bool) {
	before := heapInUse()
	var buf bytes.Buffer
	_, err := transcript.Write(&buf, benchSize(b), 1)
	if err != nil {
		b.Fatal(err)
	}
	text := buf.String()
	buf = bytes.Buffer{}
	lines := strings.Split(text, "\n")
	// The edited line: a user message near the middle.
	target := -1
	for i := len(lines) / 2; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], `{"role":"user","content":"`) {
			target = i
			break
		}
	}
	if target < 0 {
		b.Fatalf("no user message in the second half: target = %v, want >= %v", target, 0)
	}
	col := len(`{"role":"user","content":"`)
	lines = nil

	h := startHarness(b, harnessOptions{initOptions: map[string]any{"budget": 1_000_000, "tokens": withTokens}})
	published := make(chan *protocol.PublishDiagnosticsParams, 16)
	h.client.mu.Lock()
	h.client.published = published
	h.client.mu.Unlock()

	start := time.Now()
	uri := docURI("large.jsonl")
	h.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "jsonl", "version": 1, "text": text,
	}})
	select {
	case <-published:
	case <-time.After(2 * time.Minute):
		b.Fatal("no diagnostics after opening")
	}
	b.Logf("open: %d bytes, first diagnostics after %v", len(text), time.Since(start))
	size := len(text)
	text = ""
	heap := heapInUse() - before

	var change, lens, lensFirst, lensDecoded, resolve []time.Duration
	version := 1
	b.ResetTimer()
	for i := range b.N {
		version++
		r := map[string]any{"start": map[string]any{"line": target, "character": col}}
		edit := "x"
		if i%2 == 0 {
			r["end"] = r["start"]
		} else {
			r["end"] = map[string]any{"line": target, "character": col + 1}
			edit = ""
		}
		t0 := time.Now()
		h.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": version},
			"contentChanges": []any{map[string]any{"range": r, "text": edit}},
		})
		select {
		case p := <-published:
			if want := uint32(version); p.Version != want {
				b.Fatalf("p.Version = %v, want %v", p.Version, want)
			}
		case <-time.After(time.Minute):
			b.Fatal("no diagnostics after an edit")
		}
		change = append(change, time.Since(t0))

		// Timed to the first byte of the reply (the server's own latency),
		// to its last byte (the reply received: codeLens-ms), and to the end
		// of this Go client's decoding, which for 8,000 lenses costs more
		// than the server spends answering.
		t1 := time.Now()
		h.reads.arm()
		var raw json.RawMessage
		h.call("textDocument/codeLens", textDoc(uri), &raw)
		lensDecoded = append(lensDecoded, time.Since(t1))
		first, last := h.reads.reads()
		lensFirst = append(lensFirst, first.Sub(t1))
		lens = append(lens, last.Sub(t1))
		if i == 0 || withTokens {
			var lenses []protocol.CodeLens
			if err := json.Unmarshal(raw, &lenses); err != nil {
				b.Fatalf("json.Unmarshal(raw, &lenses): %v", err)
			}
			if len(lenses) == 0 {
				b.Fatal("lenses is empty, want some")
			}
			if i == 0 {
				b.Logf("%d lenses, %d bytes", len(lenses), len(raw))
			}
			if withTokens {
				// The lens of the unit holding the edited line.
				k := -1
				for j, l := range lenses {
					if l.Command == nil && int(l.Range.Start.Line) <= target {
						k = j
					}
				}
				if k < 0 {
					b.Fatalf("no unit lens at or above the edited line: k = %v, want >= %v", k, 0)
				}
				t2 := time.Now()
				var got protocol.CodeLens
				h.call("codeLens/resolve", lenses[k], &got)
				resolve = append(resolve, time.Since(t2))
				if !strings.Contains(got.Command.Title, " tokens · ") {
					b.Fatalf("got.Command.Title = %q, want it to contain %q", got.Command.Title, " tokens · ")
				}
			}
		}
	}
	b.StopTimer()
	// After ResetTimer, which deletes metrics reported before it.
	b.ReportMetric(float64(heap)/float64(size), "heap/doc")
	b.ReportMetric(median(change), "didChange→diagnostics-ms")
	b.ReportMetric(median(lens), "codeLens-ms")
	b.ReportMetric(median(lensFirst), "codeLens-first-byte-ms")
	b.ReportMetric(median(lensDecoded), "codeLens-decoded-ms")
	if withTokens {
		b.ReportMetric(median(resolve), "resolve-ms")
	}
}
