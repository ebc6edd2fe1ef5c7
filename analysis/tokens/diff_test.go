package tokens_test

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/randjsonl"
	"github.com/sessionls/sessionls/internal/randjsonl/oracle"
	"github.com/sessionls/sessionls/internal/transcript"
)

var diffSeed = flag.Uint64("tokens.seed", 0, "extra seed for TestDiffJSTiktoken (0: only the fixed seeds)")

// textPieces are the hard cases for a tokenizer's pre-split and merge:
// scripts without spaces, emoji sequences, contractions, digits, escapes
// (as the stringified text writes them), whitespace of every kind, and
// special-token text.
var textPieces = []string{
	"hello", " world", "中文", "日本語のテキスト", "한국어", "Straße", "café", "e\u0301", "😀", "👩‍💻", "🇫🇷",
	"it's", "I'LL", "we've", "'s", "'S", "don't", "12345", "3.14", "١٢٣", "Ⅻ", "\u00bd",
	`\n`, `\t`, `\\`, `\"`, `\u0000`, `\ud800`, `\udfff`, `\ud83d\ude00`, "\u2028", "\u2029",
	" ", "  ", "\u00a0", "\u3000", "\u200b", "\u180e", "\\r\\n",
	"<|endoftext|>", "<|endofprompt|>", "<|fim_prefix|>", "<script>", "/", "//", "::", "->", "...",
	"ǅ", "ᾈ", "ʰ", "ª", "ﬁ", "Ａ", "ｱ", "\U0001D400", "\U00020000", "\U00031350",
	"\uFFFD", "\U0010FFFF", "\u0600", "\u094D", "\u0E01\u0E31",
}

// runes are repeated into long runs, where a naive BPE is quadratic.
var runes = []string{"a", "A", " ", "\t", "中", "😀", "0", "!", `\\`, "é", "\u3000", "ab"}

// maxRun bounds the runs of one character in the random text.
const maxRun = 150

// textLine returns a valid user message whose content is random text made
// of textPieces and runs, as a session line.
func textLine(r *rand.Rand) []byte {
	var b strings.Builder
	for range 1 + r.IntN(12) {
		if r.IntN(6) == 0 {
			// js-tiktoken's merge is slower than quadratic: a run of 1,000
			// CJK characters takes it seconds. Longer runs are checked
			// for linear growth in TestLongRuns.
			b.WriteString(strings.Repeat(runes[r.IntN(len(runes))], 1+r.IntN(maxRun)))
			continue
		}
		b.WriteString(textPieces[r.IntN(len(textPieces))])
	}
	s := b.String()
	// Content pieces written with escapes are JSON escapes already;
	// quote the rest.
	lit := strings.NewReplacer("\t", `\t`, `"`, `\"`).Replace(s)
	return []byte(`{"role":"user","content":"` + lit + `"}`)
}

// TestDiffJSTiktoken compares token counts with the npm js-tiktoken
// package's, for both encodings, on random hostile lines, random text
// (CJK, emoji, lone surrogates, escapes, long runs of one character), the
// demo sessions and a realistic transcript.
func TestDiffJSTiktoken(t *testing.T) {
	node := oracle.Node(t)
	dir := oracle.TokensDir(t)
	seeds := oracle.Seeds(*diffSeed, 21, 22)
	var lines [][]byte
	for _, s := range seeds {
		r := rand.New(rand.NewPCG(s, 0x70c3))
		for range 800 {
			lines = append(lines, randjsonl.Line(r))
		}
		for range 25 {
			lines = append(lines, bytes.Split(randjsonl.File(r, 30), []byte("\n"))...)
		}
		for range 500 {
			lines = append(lines, textLine(r))
		}
	}
	for _, s := range runes {
		lines = append(lines, []byte(`{"role":"user","content":"`+strings.Repeat(strings.ReplaceAll(s, "\t", `\t`), 400)+`"}`))
	}
	lines = append(lines, oracle.DemoLines(t)...)
	lines = append(lines, bytes.Split(transcript.Session(150, 9), []byte("\n"))...)
	lines = slices.DeleteFunc(lines, func(l []byte) bool { return len(l) == 0 })

	want := oracle.AskCounts(t, node, dir, lines, 4*time.Minute)
	encs := []struct {
		c    *tokens.Counter
		want func(oracle.Text) *int
	}{
		{counter(t, tokens.O200kBase), func(w oracle.Text) *int { return w.O200kBase }},
		{counter(t, tokens.Cl100kBase), func(w oracle.Text) *int { return w.Cl100kBase }},
	}
	compared, failures := 0, 0
	for i, w := range want {
		if line.Parse(lines[i]).Verdict != line.Valid || w.Text == nil {
			continue // the stringify test checks that the two agree
		}
		compared++
		for _, e := range encs {
			got, err := e.c.Message(lines[i])
			if wn := e.want(w); err != nil || wn == nil || got != *wn {
				failures++
				if failures <= 20 {
					t.Errorf("%s, line %q:\n  text %q\n  ours %d (%v), js-tiktoken %s", e.c.Encoding(), lines[i], *w.Text, got, err, show(wn))
				}
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d counts of %d messages × 2 encodings differ from js-tiktoken", failures, compared)
	}
	if compared < len(lines)/3 {
		t.Errorf("only %d valid messages of %d lines: the comparison proves little", compared, len(lines))
	}
	t.Logf("%d messages counted with both encodings, equal to js-tiktoken", compared)
}

func show(p *int) string {
	if p == nil {
		return "null"
	}
	return strconv.Itoa(*p)
}
