package tokens_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/randjsonl/oracle"
)

// rawCounts returns js-tiktoken's counts of each text, o200k_base then
// cl100k_base (testdata/count.mjs), running node on two halves at once.
func rawCounts(t *testing.T, texts []string) [][2]int {
	t.Helper()
	node := oracle.Node(t)
	dir := oracle.TokensDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	const workers = 2
	counts := make([][2]int, len(texts))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	per := (len(texts) + workers - 1) / workers
	for w := range workers {
		lo, hi := min(w*per, len(texts)), min((w+1)*per, len(texts))
		path := filepath.Join(t.TempDir(), fmt.Sprintf("texts%d.jsonl", w))
		var file bytes.Buffer
		for _, s := range texts[lo:hi] {
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			file.Write(b)
			file.WriteByte('\n')
		}
		if err := os.WriteFile(path, file.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "count.mjs"), path)
			cmd.Env = append(os.Environ(), "SESSIONLS_TOKENS_ORACLE="+dir)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				errs[w] = fmt.Errorf("node count.mjs: %w\n%s", err, stderr.Bytes())
				return
			}
			sc := bufio.NewScanner(bytes.NewReader(out))
			i := lo
			for sc.Scan() {
				if i >= hi {
					errs[w] = fmt.Errorf("node count.mjs answered more than %d texts", hi-lo)
					return
				}
				if err := json.Unmarshal(sc.Bytes(), &counts[i]); err != nil {
					errs[w] = fmt.Errorf("node count.mjs: %w", err)
					return
				}
				i++
			}
			if i != hi {
				errs[w] = fmt.Errorf("node count.mjs answered %d texts of %d", i-lo, hi-lo)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return counts
}

// compareRaw counts texts with both encodings and compares with want,
// describing a text that differs with describe.
func compareRaw(t *testing.T, texts []string, want [][2]int, describe func(i int) string) {
	t.Helper()
	encs := [2]*tokens.Counter{counter(t, tokens.O200kBase), counter(t, tokens.Cl100kBase)}
	failures := 0
	for i, s := range texts {
		for e, c := range encs {
			got, err := c.Count(s)
			if err != nil || got != want[i][e] {
				failures++
				if failures <= 20 {
					t.Errorf("%s, %s: %d tokens (%v), js-tiktoken %d", c.Encoding(), describe(i), got, err, want[i][e])
				}
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d counts of %d texts × 2 encodings differ from js-tiktoken", failures, len(texts))
	}
}

// cpContexts put each code point X between a text before and after it
// (pre X post), chosen to meet every alternative of both patterns: a word
// around it, a prefix, a contraction after it, digits, spaces, a mark, CJK,
// punctuation.
var cpContexts = [][2]string{
	{"a", "'s"}, // the first: every code point; the others: see TestDiffCodePoints
	{"", ""}, {" ", ""}, {"", "a"}, {"A", "b"}, {"'", "S"}, {"x", "'LL"}, {"1", "23"},
	{"中", "!"}, {"\u0301", "."}, {"<", "/>"}, {"\t", "  x"},
}

// cpPerText is the number of code points in one text, each in its
// context, one a line.
const cpPerText = 256

// TestDiffCodePoints compares counts with js-tiktoken's for every Unicode
// scalar value (1,112,064) in one context, and in eleven more for the code
// points where the scanners could go wrong: ASCII and Latin, both ends of
// every run of code points of one class, every letter, mark, number or
// space that Go's Unicode tables do not know (node's are newer), an eighth
// of the other classed ones and of the rest of the BMP: about 1.5 million
// code points in context. node's regex engine gives the classes
// (TestTablesMatchNode checks the table); this checks the scanners and the
// merges around them.
func TestDiffCodePoints(t *testing.T) {
	if testing.Short() {
		t.Skip("about a minute of js-tiktoken: not with -short")
	}
	var all, chosen []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		all = append(all, r)
		c := tokens.ClassOf(r)
		switch {
		case r <= 0x24F, // ASCII and Latin
			c != tokens.ClassOf(r-1), c != tokens.ClassOf(r+1), // each end of a run of one class
			c != 0 && (r%8 == 0 || !inGoTables(r)), // an eighth of the classed, every one newer than Go's tables
			r <= 0xFFFF && r%8 == 0:                // an eighth of the rest of the BMP
			chosen = append(chosen, r)
		}
	}
	type batch struct {
		ctx  [2]string
		runs []rune
	}
	var texts []string
	var batches []batch
	for n, ctx := range cpContexts {
		set := chosen
		if n == 0 {
			set = all
		}
		for i := 0; i < len(set); i += cpPerText {
			run := set[i:min(i+cpPerText, len(set))]
			var b strings.Builder
			for j, r := range run {
				if j > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(ctx[0])
				b.WriteRune(r)
				b.WriteString(ctx[1])
			}
			texts = append(texts, b.String())
			batches = append(batches, batch{ctx, run})
		}
	}
	want := rawCounts(t, texts)
	compareRaw(t, texts, want, func(i int) string {
		b := batches[i]
		return fmt.Sprintf("%U to %U in context %+q", b.runs[0], b.runs[len(b.runs)-1], b.ctx)
	})
	t.Logf("%d code points in %d contexts (%d in the first, %d in each other) counted as js-tiktoken does",
		len(all)+(len(cpContexts)-1)*len(chosen), len(cpContexts), len(all), len(chosen))
}

// adversarial are the pieces of the random texts of TestDiffAdversarial:
// every class of both patterns' alternatives and the characters where
// regex engines part ways.
var adversarial = []string{
	"a", "A", "ǅ", "ʰ", "中", "\u0301", "\u0903", "\u20dd", "ſ", "\u212a", "ß", "İ", "ı", "ǈ", "ᾈ",
	"1", "١", "Ⅻ", "½", "𝟘", "\U00016D40", "\U0002EBF0", "\U000E0080", "\U00010FFF",
	" ", "  ", "\t", "\n", "\r", "\r\n", "\v", "\f", "\u00a0", "\u1680", "\u2000", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff", "\u0085", "\u180e", "\u200b",
	"'", "'s", "'S", "'t", "'re", "'RE", "'rE", "'ve", "'m", "'ll", "'lL", "'d", "'D", "'x", "’s",
	"\"", "/", "//", ".", "!", "?", "\\", "\x7f", "\x00", "\x1f", "<|endoftext|>", "<|fim_prefix|>", "-", "_", "#",
	"😀", "👩‍💻", "🇫🇷", "\ufffd", "\U0010FFFF", "\uE000",
	"hello", " world", "The", "don", "IT", "Straße", "naïve", "123456", "3.14", "日本語", "한국어", "ـ", "ๆ",
}

// TestDiffAdversarial compares counts with js-tiktoken's on 15,000 random
// texts made of adversarial pieces, and on long runs of each.
func TestDiffAdversarial(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 0x70c3))
	var texts []string
	for range 15000 {
		var b strings.Builder
		for range 1 + r.IntN(40) {
			b.WriteString(adversarial[r.IntN(len(adversarial))])
		}
		texts = append(texts, b.String())
	}
	for _, p := range adversarial {
		texts = append(texts, strings.Repeat(p, 1+200/len(p)))
	}
	want := rawCounts(t, texts)
	compareRaw(t, texts, want, func(i int) string { return fmt.Sprintf("text %+q", texts[i]) })
	t.Logf("%d adversarial texts counted as js-tiktoken does", len(texts))
}

// inGoTables reports whether Go's Unicode tables give r a class the
// pre-tokenizers read.
func inGoTables(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r) || unicode.IsSpace(r)
}
