package cli

import (
	"bufio"
	"io"
	"path/filepath"
	"strconv"

	"github.com/sessionls/sessionls/analysis"
)

// The github format: GitHub Actions workflow commands (annotations).

type githubFormatter struct {
	w       io.Writer
	buf     *bufio.Writer
	scratch []byte // reused for each line: no allocation per finding
}

// Workflow commands: the message escapes % CR LF; property values also
// escape : and , (they delimit properties). The escapes are appended in one
// pass over the text: a strings.Replacer built per message cost more than
// the rest of the format (300k findings: 46 s against 2.2 s for text).
func ghEscapeData(dst []byte, s string) []byte { return ghEscape(dst, s, false) }

func ghEscapeProperty(dst []byte, s string) []byte { return ghEscape(dst, s, true) }

func ghEscape(dst []byte, s string, property bool) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '%':
			esc = "%25"
		case '\r':
			esc = "%0D"
		case '\n':
			esc = "%0A"
		case ':':
			if property {
				esc = "%3A"
			}
		case ',':
			if property {
				esc = "%2C"
			}
		}
		if esc == "" {
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = append(dst, esc...)
		start = i + 1
	}
	return append(dst, s[start:]...)
}

func (g *githubFormatter) file(path string, findings []analysis.Finding, _ fileFixes, more []omitted) error {
	file := ghEscapeProperty(nil, filepath.ToSlash(path))
	for _, f := range findings {
		cmd := "notice"
		switch f.Severity {
		case analysis.SeverityError:
			cmd = "error"
		case analysis.SeverityWarning:
			cmd = "warning"
		}
		b := append(g.scratch[:0], "::"...)
		b = append(b, cmd...)
		b = append(b, " file="...)
		b = append(b, file...)
		b = append(b, ",line="...)
		b = strconv.AppendInt(b, int64(f.Line), 10)
		if !wholeLine(f) {
			b = append(b, ",col="...)
			b = strconv.AppendInt(b, int64(startCol(f)), 10)
		}
		b = append(b, ",endLine="...)
		b = strconv.AppendInt(b, int64(f.Line), 10)
		if !wholeLine(f) {
			b = append(b, ",endColumn="...)
			b = strconv.AppendInt(b, int64(endCol(f)), 10)
		}
		b = append(b, ",title="...)
		b = ghEscapeProperty(append(b, "sessionls("...), f.Code)
		b = append(b, ")::"...)
		b = ghEscapeData(b, f.Message)
		b = append(b, '\n')
		g.scratch = b
		if _, err := g.buf.Write(b); err != nil {
			return err
		}
	}
	for _, m := range more {
		b := append(g.scratch[:0], "::notice file="...)
		b = append(b, file...)
		b = append(b, ",title="...)
		b = ghEscapeProperty(b, "sessionls("+m.code+")")
		b = append(b, "::"...)
		b = ghEscapeData(b, m.message())
		b = append(b, '\n')
		g.scratch = b
		if _, err := g.buf.Write(b); err != nil {
			return err
		}
	}
	return g.buf.Flush()
}

func (g *githubFormatter) end(summary) error { return nil }
