package ctxmap

import (
	"bytes"
	"context"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/internal/transcript"
)

// BenchmarkMap: the engine's stream pass as check makes it, beside the same
// pass with a Builder observing and the map built, on a 64 MiB transcript
// held in memory (bench/map.sh measures the commands on files):
//
//	go test -run '^$' -bench Map -benchtime 5x ./analysis/ctxmap
func BenchmarkMap(b *testing.B) {
	var buf bytes.Buffer
	if _, err := transcript.Write(&buf, 64<<20, 1); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	opts := analysis.Options{SkipMessages: true, Budget: 100000}
	b.Run("check", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := analysis.AnalyzeReader(context.Background(), bytes.NewReader(data), opts); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			bl := NewBuilder()
			o := opts
			o.Observer = bl
			rep, err := analysis.AnalyzeReader(context.Background(), bytes.NewReader(data), o)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := bl.Build(rep, Config{Budget: o.Budget}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
