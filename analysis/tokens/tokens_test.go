package tokens_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/analysis/tokens"
)

func counter(t testing.TB, enc tokens.Encoding) *tokens.Counter {
	t.Helper()
	c, err := tokens.New(enc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestParseEncoding(t *testing.T) {
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		if e, err := tokens.ParseEncoding(name); err != nil || string(e) != name {
			t.Errorf("ParseEncoding(%q) = %q, %v", name, e, err)
		}
	}
	for _, name := range []string{"", "O200K_BASE", "p50k_base", "gpt2"} {
		_, err := tokens.ParseEncoding(name)
		if err == nil || !strings.Contains(err.Error(), "o200k_base or cl100k_base") {
			t.Errorf("ParseEncoding(%q): %v, want an error naming the choices", name, err)
		}
		if _, err := tokens.New(tokens.Encoding(name)); err == nil {
			t.Errorf("New(%q) accepted an unknown encoding", name)
		}
	}
	if tokens.Encodings()[0] != tokens.Default || tokens.Default != tokens.O200kBase {
		t.Errorf("the default encoding must be o200k_base, listed first")
	}
}

// Known counts, as js-tiktoken 1.0.21 gives them; the
// differential test covers the rest.
func TestKnownCounts(t *testing.T) {
	cases := []struct {
		text         string
		o200k, cl100 int
	}{
		{"hello world", 2, 2},
		{"", 0, 0},
		{`{"role":"user","content":"hi"}`, 9, 9},
		{"<|endoftext|>", 7, 7},
		{"中文", 1, 2},
	}
	o, c := counter(t, tokens.O200kBase), counter(t, tokens.Cl100kBase)
	for _, k := range cases {
		if n, err := o.Count(k.text); err != nil || n != k.o200k {
			t.Errorf("o200k_base %q: %d, %v; want %d", k.text, n, err, k.o200k)
		}
		if n, err := c.Count(k.text); err != nil || n != k.cl100 {
			t.Errorf("cl100k_base %q: %d, %v; want %d", k.text, n, err, k.cl100)
		}
	}
}

func TestMessage(t *testing.T) {
	c := counter(t, tokens.O200kBase)
	// Extras are dropped, members re-ordered: the text counted is the
	// normalized message, not the line.
	n, err := c.Message([]byte(` {"meta":{"x":[1,2,3]},"content":"hi","role":"user"}`))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := c.Count(`{"role":"user","content":"hi"}`)
	if n != want {
		t.Errorf("Message = %d, want %d (the normalized text's count)", n, want)
	}
	if _, err := c.Message([]byte(`{"role":"system","content":""}`)); !errors.Is(err, tokens.ErrNotValid) {
		t.Errorf("invalid line: %v, want ErrNotValid", err)
	}
	hostile := `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":` +
		strings.Repeat(`{"x":0,"1":`, 100000) + "0" + strings.Repeat(`}`, 100000) + `}]}`
	if _, err := c.Message([]byte(hostile)); !errors.Is(err, line.ErrTooComplex) {
		t.Errorf("hostile re-ordering: %v, want line.ErrTooComplex", err)
	}
}

// TestLongRuns counts long runs of one character, where a naive BPE is
// quadratic; the counts are checked against js-tiktoken by the
// differential test on shorter runs, and must grow linearly here.
func TestLongRuns(t *testing.T) {
	c := counter(t, tokens.O200kBase)
	for _, s := range []string{"a", " ", "中", "😀", "\\", "0"} {
		short, err := c.Count(strings.Repeat(s, 1000))
		if err != nil {
			t.Fatal(err)
		}
		long, err := c.Count(strings.Repeat(s, 200000))
		if err != nil {
			t.Fatal(err)
		}
		if long < 150*short || long > 250*short {
			t.Errorf("%q: 1,000 → %d tokens but 200,000 → %d", s, short, long)
		}
	}
}

// TestInvalidUTF8 reads invalid UTF-8 as node does: each maximal invalid
// subpart is one U+FFFD.
func TestInvalidUTF8(t *testing.T) {
	c := counter(t, tokens.O200kBase)
	for _, k := range []struct{ bad, good string }{
		{"a\xffb", "a\uFFFDb"},
		{"\xe4\xb8x", "\uFFFDx"},
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
	} {
		got, _ := c.Count(k.bad)
		want, _ := c.Count(k.good)
		if got != want {
			t.Errorf("%q: %d tokens, %q has %d", k.bad, got, k.good, want)
		}
	}
}

func TestConcurrent(t *testing.T) {
	c := counter(t, tokens.Cl100kBase)
	msg := []byte(`{"role":"user","content":"the same text, counted from many goroutines 中文 😀"}`)
	want, err := c.Message(msg)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if n, err := c.Message(msg); err != nil || n != want {
					errs <- "concurrent count differs"
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestFormerDivergences pins js-tiktoken 1.0.21's counts where the regex
// pre-tokenizer of github.com/tiktoken-go/tokenizer, which counted tokens
// before, differed from it: DEL (which it dropped), U+FEFF (\s in
// JavaScript, not in Go), U+0085 (\s in Go, not in JavaScript), "'ſ" (a
// contraction for a case-insensitive pattern, not for js-tiktoken's spelled
// out one) and letters assigned after Unicode 15.0. The pre-tokenizer is
// ours now (pretoken.go, classes from node's tables); the differential tests
// check every code point.
func TestFormerDivergences(t *testing.T) {
	cases := []struct {
		why          string
		text         string
		o200k, cl100 int
	}{
		{"DEL", "\x7f", 1, 1},
		{"DEL", "a\x7fb", 3, 3},
		{"DEL run", strings.Repeat("\x7f", 1000), 1000, 1000},
		{"U+FEFF", "\ufeff\\u001f", 4, 4},
		{"U+0085", "x\u0085\\n", 5, 5},
		{"Unicode 16", "\U00016D40\\t", 5, 5},
		{"Unicode 15.1", "\U0002EBF0<script>", 6, 6},
		{"long s", "it'ſ", 3, 4},
		{"long s", "'ſ", 2, 3},
		{"Kelvin sign", "don'\u212a", 4, 4},
	}
	o, c := counter(t, tokens.O200kBase), counter(t, tokens.Cl100kBase)
	for _, k := range cases {
		if n, err := o.Count(k.text); err != nil || n != k.o200k {
			t.Errorf("o200k_base, %s %+q: %d tokens (%v), js-tiktoken %d", k.why, k.text, n, err, k.o200k)
		}
		if n, err := c.Count(k.text); err != nil || n != k.cl100 {
			t.Errorf("cl100k_base, %s %+q: %d tokens (%v), js-tiktoken %d", k.why, k.text, n, err, k.cl100)
		}
	}
}
