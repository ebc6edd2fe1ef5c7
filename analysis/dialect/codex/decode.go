package codex

import (
	"bytes"
	"unicode/utf8"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
)

// facts is what one physical line holds for the analysis, with no
// reference to the line's memory, so that a stream can drop each line once
// it is decoded.
type facts struct {
	blank   bool // whitespace only: the loader skips it before parsing
	badUTF8 int  // offset in the line of its first byte that is not UTF-8; -1 if none
	badCol  int  // its UTF-16 column
	// JSON.parse refuses the line (and serde_json with it): the reason and
	// where, for the damage findings.
	jsonBad    bool
	jsonReason string
	jsonSpan   line.Span
	skip       string // why the loader skips a line that parses; "" when it reads it
	whole      line.Span
	rec        record
	idSpan     line.Span // a call's or output's call_id literal
	tokens     int64
	tokErr     error
}

// counterOf is opts.Tokens as a counter of any text, or nil.
func counterOf(opts analysis.Options) interface{ Count(string) (int, error) } {
	c, _ := opts.Tokens.(interface{ Count(string) (int, error) })
	return c
}

// decodeLine reads one physical line (without its '\n') as codex's loader
// does: Rust's str::lines drops a CR before the '\n', a whitespace-only line
// is skipped, serde_json parses the rest (package line gives JSON.parse's
// verdict, unless parsed says JSON.parse already accepted the line;
// serdeRejects the three ways serde_json differs), and the value is read
// as a RolloutLine.
func decodeLine(l []byte, counter interface{ Count(string) (int, error) }, parsed bool) facts {
	f := facts{badUTF8: -1}
	if !utf8.Valid(l) {
		for i := 0; i < len(l); {
			r, size := utf8.DecodeRune(l[i:])
			if r == utf8.RuneError && size <= 1 {
				f.badUTF8, f.badCol = i, int(width16(l[:i]))
				break
			}
			i += size
		}
	}
	l = bytes.TrimSuffix(l, []byte{'\r'})
	if len(bytes.TrimSpace(l)) == 0 {
		f.blank = true
		return f
	}
	f.whole = wholeLine(l)
	if f.badUTF8 >= 0 {
		return f // the file is refused as a whole
	}
	if !parsed {
		if r := line.ParseJSON(l); r.Verdict == line.InvalidJSON {
			f.jsonBad, f.jsonReason, f.jsonSpan = true, r.Reason, r.Span
			return f
		}
	}
	if why := serdeRejects(l); why != "" {
		f.skip = "serde_json cannot parse it: " + why
		return f
	}
	rec, why := readRecord(l)
	if why != "" {
		f.skip = why
		return f
	}
	if rec.kind == kindCall || rec.kind == kindOutput {
		f.idSpan = callIDSpan(l)
	}
	if counter != nil && rec.sentText != "" {
		n, err := counter.Count(rec.sentText)
		f.tokens, f.tokErr = int64(n), err
	}
	rec.sentText = "" // counted; the report keeps no text
	f.rec = rec
	return f
}
