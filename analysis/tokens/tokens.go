// Package tokens counts the tokens of session messages with OpenAI's BPE
// tokenizers, built in: the tables are compiled into the binary, and
// nothing is fetched at run time.
//
// A message's token count is the number of tokens of exactly the text
// whose UTF-16 length is its character cost (minus the separator):
// JSON.stringify of the normalized message (see line.AppendStringify). A
// unit's count is the sum of its messages'.
//
// Counts equal the npm js-tiktoken package's (1.0.21) on every input, text
// such as "<|endoftext|>" counted as ordinary text. Everything it depends on
// is taken from js-tiktoken and node themselves: the byte-pair ranks
// (o200k_base.ranks, cl100k_base.ranks) from js-tiktoken's tables,
// and the character classes of its pre-tokenizer patterns (\p{L}, \p{N},
// \s, …) from node's own regex engine for every code point
// (classes_table.go); `go generate` rewrites both (gen/gen.go) and the
// drift tests compare them with node. The pre-tokenizers are scanners
// written for the two patterns (pretoken.go), and the byte-pair merge is
// js-tiktoken's algorithm (the lowest rank first, the leftmost of equal
// ranks), in O(n log n) for long pieces.
//
// A Counter is safe for concurrent use: the analysis engine calls it from
// its workers, one message at a time, so a large file is counted across
// every core while it streams. Each call borrows a scratch state (buffers
// and a bounded cache of the counts of recent multi-token pieces, since a
// transcript repeats its words) from the Counter's pool.
package tokens

import (
	_ "embed"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/sessionls/sessionls/analysis/line"
)

// Encoding names a tokenizer.
type Encoding string

const (
	// O200kBase is the encoding of GPT-4o, GPT-4.1, GPT-5 and the o-series.
	O200kBase Encoding = "o200k_base"
	// Cl100kBase is the encoding of GPT-4 and GPT-3.5-turbo.
	Cl100kBase Encoding = "cl100k_base"
)

// Default is the encoding used when none is named.
const Default = O200kBase

// Encodings lists the supported encodings, the default first.
func Encodings() []Encoding { return []Encoding{O200kBase, Cl100kBase} }

// ParseEncoding checks an encoding name.
func ParseEncoding(name string) (Encoding, error) {
	for _, e := range Encodings() {
		if string(e) == name {
			return e, nil
		}
	}
	names := make([]string, 0, 2)
	for _, e := range Encodings() {
		names = append(names, string(e))
	}
	return "", fmt.Errorf("unknown tokenizer %q (want %s)", name, strings.Join(names, " or "))
}

// Counter counts tokens with one encoding. It is safe for concurrent use.
type Counter struct {
	enc    Encoding
	ranks  *ranks
	o200k  bool      // which pre-tokenizer
	states sync.Pool // *state
}

//go:embed o200k_base.ranks
var o200kRanks string

//go:embed cl100k_base.ranks
var cl100kRanks string

// The tables are built on first use (about 15 ms for o200k_base) and shared
// by every Counter; they are only read afterwards.
var (
	o200kTable  = sync.OnceValues(func() (*ranks, error) { return loadRanks(o200kRanks) })
	cl100kTable = sync.OnceValues(func() (*ranks, error) { return loadRanks(cl100kRanks) })
)

// New returns a Counter for enc. The encoding's tables (about 200,000
// tokens for o200k_base) are built on the first call for that encoding in
// the process and shared by every later Counter.
func New(enc Encoding) (*Counter, error) {
	var t *ranks
	var err error
	switch enc {
	case O200kBase:
		t, err = o200kTable()
	case Cl100kBase:
		t, err = cl100kTable()
	default:
		_, err := ParseEncoding(string(enc))
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("tokens: %s: %w", enc, err)
	}
	return &Counter{enc: enc, ranks: t, o200k: enc == O200kBase}, nil
}

// Encoding returns the Counter's encoding.
func (c *Counter) Encoding() Encoding { return c.enc }

// state is the scratch of one count: borrowed from the Counter's pool, so
// concurrent counts never share it.
type state struct {
	text  []byte // the stringified message
	fixed []byte // text with invalid UTF-8 replaced
	parts []part
	nodes []node
	heap  []candidate
	// cache holds the counts of recent pieces, where the piece's hash says:
	// a transcript repeats its words, and this small table stays in the
	// core's cache where the ranks table (4 MB) does not.
	cache [cacheSize]cached
}

// cached is a piece of at most len(key) bytes and its count (n == 0: none).
type cached struct {
	key   [22]byte
	n     uint8 // the piece's length
	count int32
}

const (
	// cacheSize is the number of pieces a state remembers: 128 KB.
	cacheSize = 1 << 12
	// maxPooled is the largest buffer kept for reuse, so that one huge
	// message does not pin its memory.
	maxPooled = 1 << 20
)

func (c *Counter) getState() *state {
	if st, ok := c.states.Get().(*state); ok {
		return st
	}
	return new(state)
}

func (c *Counter) putState(st *state) {
	if cap(st.text) > maxPooled {
		st.text = nil
	}
	if cap(st.fixed) > maxPooled {
		st.fixed = nil
	}
	if cap(st.parts) > maxPooled/8 || cap(st.nodes) > maxPooled/12 || cap(st.heap) > maxPooled/8 {
		st.parts, st.nodes, st.heap = nil, nil, nil
	}
	c.states.Put(st)
}

// Count returns the number of tokens of text (UTF-8). Invalid UTF-8 is
// read the way node decodes it (each maximal invalid subpart one U+FFFD),
// not tokenized as raw bytes; stringified messages are always valid.
func (c *Counter) Count(text string) (int, error) {
	st := c.getState()
	defer c.putState(st)
	return c.count(text, st), nil
}

// count counts text with the scratch st.
func (c *Counter) count(text string, st *state) int {
	if !utf8.ValidString(text) {
		st.fixed = appendReplaced(st.fixed[:0], text)
		text = unsafe.String(unsafe.SliceData(st.fixed), len(st.fixed))
	}
	n := 0
	for i := 0; i < len(text); {
		var end int
		var ok bool
		if c.o200k {
			end, ok = o200kNext(text, i)
		} else {
			end, ok = cl100kNext(text, i)
		}
		if ok {
			n += c.piece(text[i:end], st)
		}
		i = end
	}
	return n
}

// piece returns the number of tokens of one piece of the pre-tokenizer.
func (c *Counter) piece(p string, st *state) int {
	if len(p) == 1 {
		return 1 // every byte is a token
	}
	h := maphash.String(c.ranks.seed, p)
	e := &st.cache[h&(cacheSize-1)]
	if int(e.n) == len(p) && string(e.key[:e.n]) == p {
		return int(e.count)
	}
	n := 1
	if c.ranks.rankHashed(p, h) == noRank {
		n = c.ranks.mergeCount(p, st)
	}
	if len(p) <= len(e.key) {
		e.n = uint8(copy(e.key[:], p))
		e.count = int32(n)
	}
	return n
}

// appendReplaced appends s with each maximal subpart of an invalid UTF-8
// sequence replaced by U+FFFD, as node's UTF-8 decoder (WHATWG) does.
func appendReplaced(dst []byte, s string) []byte {
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
			n = maximalSubpart(s)
		} else {
			dst = append(dst, s[:n]...)
		}
		s = s[n:]
	}
	return dst
}

// maximalSubpart returns the length of the maximal subpart of an
// ill-formed sequence at the start of s (Unicode 3.9, table 3-7): the
// longest prefix of a well-formed sequence, or one byte.
func maximalSubpart(s string) int {
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch c := s[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	i := 1
	for ; i <= need && i < len(s); i++ {
		c := s[i]
		if i == 1 && (c < lo || c > hi) || i > 1 && (c < 0x80 || c > 0xBF) {
			break
		}
	}
	return i
}

// ErrNotValid is returned by Message for a line that is not a valid
// session message.
var ErrNotValid = line.ErrNotValid

// Message returns the number of tokens of JSON.stringify of the normalized
// message of l, a line that line.Parse judges Valid (without its '\n').
// It fails with ErrNotValid for a line that is not valid, and with
// line.ErrTooComplex for a hostile message whose objects cannot be
// re-ordered in bounded work.
func (c *Counter) Message(l []byte) (int, error) {
	st := c.getState()
	defer c.putState(st)
	text, err := line.AppendStringify(st.text[:0], l)
	st.text = text[:0]
	if err != nil {
		return 0, err
	}
	// count only reads the string; st.text is not changed until it returns.
	return c.count(unsafe.String(unsafe.SliceData(text), len(text)), st), nil
}
