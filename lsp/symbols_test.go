package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/internal/transcript"
	"go.lsp.dev/protocol"
)

// unitsSession is a session of n units, each an assistant's tool call
// and its result.
func unitsSession(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"role":"assistant","content":"call %d","toolCalls":[{"id":"c%d","name":"run","input":{}}]}`+"\n", i, i)
		fmt.Fprintf(&b, `{"role":"tool","toolCallId":"c%d","isError":false,"content":"result %d"}`+"\n", i, i)
	}
	return b.String()
}

// TestDocumentSymbolsBounded: a large document's outline stays within
// maxSymbols and still puts every line of every unit inside a symbol that
// names it (breadcrumbs and sticky scroll show the symbol at the cursor):
// units with their messages while both fit, units alone while they fit,
// else bins of consecutive units whose counts, messages and chars add up
// to the report's.
func TestDocumentSymbolsBounded(t *testing.T) {
	h := startHarness(t, harnessOptions{})
	for _, tc := range []struct {
		units    int
		wantSyms int // top-level symbols
		wantKids bool
		perBin   int // units per symbol
	}{
		{units: 3, wantSyms: 3, wantKids: true, perBin: 1},
		{units: maxSymbols / 3, wantSyms: maxSymbols / 3, wantKids: true, perBin: 1},
		{units: maxSymbols/3 + 1, wantSyms: maxSymbols/3 + 1, perBin: 1},
		{units: maxSymbols / 2, wantSyms: maxSymbols / 2, perBin: 1},
		{units: maxSymbols, wantSyms: maxSymbols, perBin: 1},
		{units: maxSymbols + 1, wantSyms: (maxSymbols + 2) / 2, perBin: 2},
		{units: 3*maxSymbols + 7, wantSyms: (3*maxSymbols + 7 + 3) / 4, perBin: 4},
	} {
		t.Run(fmt.Sprint(tc.units), func(t *testing.T) {
			text := unitsSession(tc.units)
			rep := analysis.NewDocument(text, analysis.Options{}).Report()
			if len(rep.Units) != tc.units || len(rep.Messages) != 2*tc.units {
				t.Fatalf("the session has %d units and %d messages, want %d and %d", len(rep.Units), len(rep.Messages), tc.units, 2*tc.units)
			}
			uri := h.open(fmt.Sprintf("bounded-%d.jsonl", tc.units), "jsonl", text)
			var raw json.RawMessage
			h.call("textDocument/documentSymbol", textDoc(uri), &raw)
			var syms []protocol.DocumentSymbol
			if err := json.Unmarshal(raw, &syms); err != nil {
				t.Fatalf("decoding the symbols: %v", err)
			}
			if len(syms) != tc.wantSyms {
				t.Fatalf("%d symbols, want %d", len(syms), tc.wantSyms)
			}
			total := 0
			for _, s := range syms {
				total += 1 + len(s.Children)
			}
			if total > maxSymbols && tc.units+2*tc.units > maxSymbols {
				t.Errorf("%d symbols in all, more than %d", total, maxSymbols)
			}
			// Bytes per symbol: what the bound on symbols bounds.
			if perSym := len(raw) / total; perSym > 400 {
				t.Errorf("%d bytes for %d symbols: %d a symbol", len(raw), total, perSym)
			}
			var chars int64
			next := 0 // the next unit a symbol must start with
			for i, s := range syms {
				n := min(tc.perBin, tc.units-next)
				first, last := rep.Units[next], rep.Units[next+n-1]
				if got, want := s.Range.Start.Line, uint32(first.StartLine-1); got != want {
					t.Fatalf("symbol %d starts on line %d, want %d (unit %d)", i, got, want, next)
				}
				if got, want := s.Range.End.Line, uint32(last.EndLine-1); got != want {
					t.Fatalf("symbol %d ends on line %d, want %d", i, got, want)
				}
				var binChars int64
				for _, u := range rep.Units[next : next+n] {
					binChars += u.Chars
				}
				chars += binChars
				want := fmt.Sprintf("lines %d–%d · %s chars", first.StartLine, last.EndLine, thousands(binChars))
				if tc.perBin > 1 {
					want = fmt.Sprintf("lines %d–%d · %d unit%s · %s chars", first.StartLine, last.EndLine, n, map[bool]string{true: "s"}[n > 1], thousands(binChars))
				}
				if s.Name != want {
					t.Fatalf("symbol %d is %q, want %q", i, s.Name, want)
				}
				if wantDetail := fmt.Sprintf("%d messages", 2*n); s.Detail != wantDetail {
					t.Fatalf("symbol %d's detail is %q, want %q", i, s.Detail, wantDetail)
				}
				if got := len(s.Children) > 0; got != tc.wantKids {
					t.Fatalf("symbol %d has %d children, want children: %v", i, len(s.Children), tc.wantKids)
				}
				if tc.wantKids && (len(s.Children) != 2 || s.Children[1].Name != fmt.Sprintf("tool c%d", next)) {
					t.Fatalf("symbol %d's children: %+v", i, s.Children)
				}
				next += n
			}
			if next != tc.units || chars != rep.TotalChars {
				t.Errorf("the symbols cover %d units and %d chars, want %d and %d", next, chars, tc.units, rep.TotalChars)
			}
		})
	}
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestKeptAnswersFollowEdits: documentSymbol and codeLens answers are kept
// per report (VS Code asks several times per version); an edit, or a new
// budget, gives new ones.
func TestKeptAnswersFollowEdits(t *testing.T) {
	h := startHarness(t, harnessOptions{})
	text := unitsSession(3)
	uri := h.open("kept.jsonl", "jsonl", text)
	unitChars := func() (symbol, lens string) {
		t.Helper()
		var syms []protocol.DocumentSymbol
		h.call("textDocument/documentSymbol", textDoc(uri), &syms)
		var lenses []protocol.CodeLens
		h.call("textDocument/codeLens", textDoc(uri), &lenses)
		if len(syms) != 3 {
			t.Fatalf("%d symbols, want 3", len(syms))
		}
		for _, l := range lenses {
			if l.Range.Start.Line == 2 && l.Command != nil && !strings.HasPrefix(l.Command.Title, "Σ") && !strings.HasPrefix(l.Command.Title, "✂") {
				return syms[1].Name, l.Command.Title
			}
		}
		t.Fatalf("no unit lens on line 3: %+v", lenses)
		return "", ""
	}
	sym1, lens1 := unitChars()
	sym2, lens2 := unitChars() // the kept answers
	if sym1 != sym2 || lens1 != lens2 {
		t.Fatalf("asked twice of one version: %q, %q then %q, %q", sym1, lens1, sym2, lens2)
	}
	h.insert(uri, 2, 3, len(`{"role":"tool","toolCallId":"c1","isError":false,"content":"`), "xy")
	sym3, lens3 := unitChars()
	var before, after int
	fmt.Sscanf(sym1[strings.Index(sym1, "· ")+len("· "):], "%d", &before)
	fmt.Sscanf(sym3[strings.Index(sym3, "· ")+len("· "):], "%d", &after)
	if after != before+2 {
		t.Errorf("after inserting 2 characters the unit's symbol is %q, was %q", sym3, sym1)
	}
	if !strings.HasPrefix(lens3, fmt.Sprintf("%d chars · ", after)) {
		t.Errorf("after inserting 2 characters the unit's lens is %q, was %q", lens3, lens1)
	}
	h.call("workspace/executeCommand", map[string]any{"command": commandSetBudget, "arguments": []any{100000}}, nil)
	var lenses []protocol.CodeLens
	h.call("textDocument/codeLens", textDoc(uri), &lenses)
	var titles []string
	for _, l := range lenses {
		if l.Command != nil {
			titles = append(titles, l.Command.Title)
		}
	}
	if len(titles) == 0 || !strings.HasPrefix(titles[0], "✂ budget 100,000 · ") {
		t.Errorf("after setting a budget the lenses are %q, want the ✂ lens of budget 100,000 first", titles)
	}
}

// BenchmarkDocumentSymbols: the outline of a realistic transcript
// (SESSIONLS_BENCH_MB, default 50 MB), built and encoded as the server
// sends it, in full (as before the bound) and bounded by maxSymbols:
// its time, its bytes and its symbols.
//
//	SESSIONLS_BENCH_MB=19 go test -run XXX -bench DocumentSymbols ./lsp
func BenchmarkDocumentSymbols(b *testing.B) {
	var buf bytes.Buffer
	if _, err := transcript.Write(&buf, benchSize(b), 1); err != nil {
		b.Fatal(err)
	}
	doc := analysis.NewDocument(buf.String(), analysis.Options{})
	rep := doc.Report()
	b.Logf("%d bytes, %d units, %d messages", buf.Len(), len(rep.Units), len(rep.Messages))
	for _, c := range []struct {
		name string
		max  int
	}{{"full", math.MaxInt}, {"bounded", maxSymbols}} {
		b.Run(c.name, func(b *testing.B) {
			var size, count int
			for b.Loop() {
				syms := documentSymbols(doc, rep, c.max)
				out, err := json.Marshal(syms)
				if err != nil {
					b.Fatal(err)
				}
				size, count = len(out), len(syms)
				for _, s := range syms {
					count += len(s.Children)
				}
			}
			b.ReportMetric(float64(size), "response-bytes")
			b.ReportMetric(float64(count), "symbols")
		})
	}
}
