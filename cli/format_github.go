package cli

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/sessionls/sessionls/analysis"
)

// The github format: GitHub Actions workflow commands (annotations).

type githubFormatter struct {
	w   io.Writer
	buf *bufio.Writer
}

// Workflow commands: the message escapes % CR LF; property values also
// escape : and , (they delimit properties).
func ghEscapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghEscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

func (g *githubFormatter) file(path string, findings []analysis.Finding, _ fileFixes) error {
	for _, f := range findings {
		cmd := "notice"
		switch f.Severity {
		case analysis.SeverityError:
			cmd = "error"
		case analysis.SeverityWarning:
			cmd = "warning"
		}
		cols := fmt.Sprintf(",col=%d,endLine=%d,endColumn=%d", startCol(f), f.Line, endCol(f))
		if wholeLine(f) {
			cols = fmt.Sprintf(",endLine=%d", f.Line)
		}
		fmt.Fprintf(g.buf, "::%s file=%s,line=%d%s,title=%s::%s\n",
			cmd, ghEscapeProperty(filepath.ToSlash(path)), f.Line, cols,
			ghEscapeProperty("sessionls("+f.Code+")"), ghEscapeData(f.Message))
	}
	return g.buf.Flush()
}

func (g *githubFormatter) end(summary) error { return nil }
