package claude

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
)

// corpusFiles reads every transcript of the corpus, the fuzz targets' seeds.
func corpusFiles(f *testing.F) [][]byte {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join(corpus, "*.jsonl"))
	var out [][]byte
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

// FuzzDialect: any bytes are analysed, planned and fixed without a panic;
// the stream's report is Analyze's; every fix's edits lie in the file,
// sorted, within its lines.
func FuzzDialect(f *testing.F) {
	for _, data := range corpusFiles(f) {
		f.Add(data)
		// Each line alone and the last few lines, for a quicker start.
		lines := bytes.Split(data, []byte("\n"))
		f.Add(bytes.Join(lines[max(0, len(lines)-4):], []byte("\n")))
	}
	f.Add([]byte(`{"type":"user","uuid":"a","parentUuid":"a","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"x"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep := Dialect{}.Analyze(data, analysis.Options{})
		stream, err := Dialect{}.AnalyzeReader(context.Background(), bytes.NewReader(data), analysis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(stream.Findings) != len(rep.Findings) || len(stream.Messages) != len(rep.Messages) {
			t.Fatalf("stream %d findings %d messages, Analyze %d %d", len(stream.Findings), len(stream.Messages), len(rep.Findings), len(rep.Messages))
		}
		for _, fx := range (Dialect{}).Plan(data, rep.Findings) {
			last := fx.LineStart
			for _, e := range fx.Edits {
				if e.Start < last || e.End < e.Start || e.End > len(data) {
					t.Fatalf("fix %q: edit %+v out of order or outside the file (%d bytes)", fx.Title, e, len(data))
				}
				last = e.End
			}
		}
		if _, err := (Dialect{}).FixAll(context.Background(), data, analysis.Options{}, true); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzDecode: any line JSON.parse accepts is decoded without a panic, its
// spans lie in the line, and an array content's cost summed from its
// blocks equals JSON.stringify's of the whole array.
func FuzzDecode(f *testing.F) {
	for _, data := range corpusFiles(f) {
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(l) < 2000 {
				f.Add(l)
			}
		}
	}
	f.Fuzz(func(t *testing.T, l []byte) {
		if line.ParseJSON(l).Verdict != line.Valid {
			return
		}
		e := decode(l, nil, nil)
		for _, sp := range []line.Span{e.uuidAt, e.parentAt, e.badAt} {
			if sp.Start < 0 || sp.End > len(l) || sp.Start > sp.End {
				t.Fatalf("span %+v outside the line (%d bytes)", sp, len(l))
			}
		}
		if !e.api || e.str || e.bad != "" {
			return
		}
		w, _, err := stringified(l[e.content.start:e.content.end], false, new([]byte))
		if err != nil {
			return
		}
		head := int64(len(`{"role":"` + e.role + `","content":`))
		if e.cost != head+w+1 {
			t.Fatalf("cost %d from the blocks, %d from the array", e.cost, head+w+1)
		}
	})
}
