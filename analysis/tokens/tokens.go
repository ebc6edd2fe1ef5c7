// Package tokens counts the tokens of session messages with OpenAI's BPE
// tokenizers, built in: the tables are compiled into the binary, and
// nothing is fetched at run time.
//
// A message's token count is the number of tokens of exactly the text
// whose UTF-16 length is its character cost (minus the separator):
// JSON.stringify of the normalized message (see line.AppendStringify). A
// unit's count is the sum of its messages'.
//
// The byte-pair encoding is github.com/tiktoken-go/tokenizer's, a
// maintained pure-Go port of tiktoken: its merge is O(n log n) in the
// length of a piece (long runs of one character stay linear-ish where a
// naive BPE is quadratic) and its tables load once, on first use. Counts
// equal the npm js-tiktoken package's (the differential test checks it),
// with text such as "<|endoftext|>" counted as ordinary text.
//
// A Counter is safe for concurrent use: the analysis engine calls it from
// its workers, one message at a time, so a large file is counted across
// every core while it streams.
package tokens

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/tiktoken-go/tokenizer/codec"

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
	enc   Encoding
	codec *codec.Codec
	bufs  sync.Pool // *[]byte for the stringified messages
}

// New returns a Counter for enc. The encoding's tables (about 200,000
// entries for o200k_base) are built on the first call for that encoding in
// the process and shared by every later Counter.
func New(enc Encoding) (*Counter, error) {
	// The codec constructors, not tokenizer.Get: Get reaches every
	// encoding's tables, and the linker would keep all of them (4 MB more).
	var c *codec.Codec
	switch enc {
	case O200kBase:
		c = codec.NewO200kBase()
	case Cl100kBase:
		c = codec.NewCl100kBase()
	default:
		_, err := ParseEncoding(string(enc))
		return nil, err
	}
	// Invalid UTF-8 is read the way node decodes it (each maximal invalid
	// subpart one U+FFFD), not tokenized as raw bytes. Stringified messages
	// are always valid UTF-8; this only matters for Count on other text.
	c.SetErrorMode(codec.ErrorModeReplace)
	return &Counter{enc: enc, codec: c}, nil
}

// Encoding returns the Counter's encoding.
func (c *Counter) Encoding() Encoding { return c.enc }

// Count returns the number of tokens of text (UTF-8).
func (c *Counter) Count(text string) (int, error) {
	n, err := c.codec.Count(text)
	if err != nil {
		return 0, fmt.Errorf("tokens: %s: %w", c.enc, err)
	}
	return n, nil
}

// ErrNotValid is returned by Message for a line that is not a valid
// session message.
var ErrNotValid = line.ErrNotValid

// maxPooled is the largest buffer kept for reuse, so that one huge
// message does not pin its memory.
const maxPooled = 1 << 20

// Message returns the number of tokens of JSON.stringify of the normalized
// message of l, a line that line.Parse judges Valid (without its '\n').
// It fails with ErrNotValid for a line that is not valid, and with
// line.ErrTooComplex for a hostile message whose objects cannot be
// re-ordered in bounded work.
func (c *Counter) Message(l []byte) (int, error) {
	bp, _ := c.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	text, err := line.AppendStringify((*bp)[:0], l)
	defer func() {
		if cap(text) <= maxPooled {
			*bp = text[:0]
			c.bufs.Put(bp)
		}
	}()
	if err != nil {
		return 0, err
	}
	// The codec only reads the string while counting; text is not changed
	// until it returns.
	return c.Count(unsafe.String(unsafe.SliceData(text), len(text)))
}
