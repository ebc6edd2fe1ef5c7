package codex

import (
	"bytes"
	"unicode/utf8"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
)

// damage returns the findings of the lines JSON.parse rejects (which codex's
// serde_json rejects too, and skips). Until the engine's JSON-level mode
// lands (issue 21, "[dialect-base]"), each is an invalid-json finding with
// the parser's reason; the engine will name their causes (truncated,
// split, interleaved, zero-filled) and repair them.
func damage(data []byte, opts analysis.Options) []analysis.Finding {
	var out []analysis.Finding
	for _, pl := range lines(data) {
		l := bytes.TrimSuffix(data[pl.start:pl.end], []byte{'\r'})
		if len(bytes.TrimSpace(l)) == 0 || !utf8.Valid(l) {
			continue
		}
		r := line.Parse(l)
		if r.Verdict != line.InvalidJSON {
			continue
		}
		out = append(out, analysis.Finding{
			Line: pl.n, Span: r.Span, Code: analysis.CodeInvalidJSON,
			Message: "codex skips this line when it resumes the session (serde_json cannot parse it): " + r.Reason,
		})
	}
	return out
}
