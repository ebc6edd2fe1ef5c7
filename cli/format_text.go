package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// The text format: path:line:col: severity[code] message, a summary.

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[1;33m"
	ansiCyan   = "\x1b[1;36m"
	ansiGreen  = "\x1b[1;32m"
)

type textFormatter struct {
	w     io.Writer
	color bool
	buf   *bufio.Writer // over w; flushed after each file
}

func (t *textFormatter) paint(code, s string) string {
	if !t.color {
		return s
	}
	return code + s + ansiReset
}

func (t *textFormatter) file(path string, findings []analysis.Finding, fixes fileFixes, more []omitted) error {
	p := textfmt.Sanitize(path)
	for i, f := range findings {
		sev := f.Severity.String()
		c := ansiCyan
		switch f.Severity {
		case analysis.SeverityError:
			c = ansiRed
		case analysis.SeverityWarning:
			c = ansiYellow
		}
		mark := ""
		if fi := fixes.at(i); fi != nil {
			mark = t.paint(ansiGreen, "[fix]") + " "
			if fi.safety == fix.Unsafe {
				mark = t.paint(ansiYellow, "[unsafe fix]") + " "
			}
		}
		fmt.Fprintf(t.buf, "%s:%d:%d: %s %s%s\n", t.paint(ansiBold, p), f.Line, startCol(f),
			t.paint(c, sev+"["+f.Code+"]"), mark, textfmt.Sanitize(f.Message))
	}
	for _, m := range more {
		fmt.Fprintf(t.buf, "%s: %s\n", t.paint(ansiBold, p), m.message())
	}
	return t.buf.Flush()
}

func (t *textFormatter) end(s summary) error {
	var line string
	if s.errors+s.warnings+s.infos == 0 {
		line = t.paint(ansiGreen, "All checks passed") + fmt.Sprintf(" (%s).", textfmt.Plural(s.filesChecked, "file", "files"))
	} else {
		counts := textfmt.Plural(s.errors, "error", "errors") + ", " + textfmt.Plural(s.warnings, "warning", "warnings")
		if s.infos > 0 {
			counts += ", " + textfmt.Plural(s.infos, "info", "info")
		}
		line = fmt.Sprintf("Found %s in %d of %s.", counts, s.filesWithFindings, textfmt.Plural(s.filesChecked, "file", "files"))
	}
	if n := len(s.ioErrors) - s.writeErrors; n > 0 {
		line = strings.TrimSuffix(line, ".") + "; " + textfmt.Plural(n, "path", "paths") + " could not be read."
	}
	if n := s.writeErrors; n > 0 {
		line = strings.TrimSuffix(line, ".") + "; " + textfmt.Plural(n, "file", "files") + " could not be written."
	}
	if l := fixSummary(s); l != "" {
		line += "\n" + l
	}
	_, err := fmt.Fprintln(t.w, line)
	return err
}

// fixSummary is the text summary's line about fixes, "" when there is
// nothing to say.
func fixSummary(s summary) string {
	findings := func(n int) string { return textfmt.Plural(n, "finding", "findings") }
	if s.fixMode {
		remain := s.errors + s.warnings + s.infos
		if s.fixed == 0 && remain == 0 {
			return "" // "All checks passed" says it all
		}
		l := fmt.Sprintf("Fixed %s in %s", findings(s.fixed), textfmt.Plural(s.filesFixed, "file", "files"))
		if s.fixed == 0 {
			l = "Nothing fixed"
		}
		l += fmt.Sprintf("; %d remain", remain)
		if remain == 1 {
			l = strings.TrimSuffix(l, "remain") + "remains"
		}
		if s.moreUnsafe > 0 {
			l += fmt.Sprintf(" (%d more fixable with --unsafe-fixes)", s.moreUnsafe)
		}
		return l + "." + lossSummary(s)
	}
	switch {
	case s.fixable > 0 && s.unsafeFixable > 0:
		return fmt.Sprintf("%d fixable with --fix (%d more with --fix --unsafe-fixes).", s.fixable, s.unsafeFixable)
	case s.fixable > 0:
		return fmt.Sprintf("%d fixable with --fix.", s.fixable)
	case s.unsafeFixable > 0:
		return fmt.Sprintf("%d fixable with --fix --unsafe-fixes.", s.unsafeFixable)
	}
	return ""
}

// lossSummary says what the unsafe fixes deleted and what was left for a
// person to decide: "" when nothing.
func lossSummary(s summary) string {
	var l string
	if s.lost.Bytes > 0 {
		l += fmt.Sprintf("\nThe unsafe fixes deleted %s (%s, whole or partial).",
			textfmt.Plural(s.lost.Bytes, "byte", "bytes"), textfmt.Plural(s.lost.Records, "record", "records"))
	}
	if s.ambiguous > 0 {
		l += fmt.Sprintf("\n%s of interleaved pieces pair into valid records more than one way: not fixed (see above).",
			textfmt.Plural(s.ambiguous, "run", "runs"))
	}
	return l
}

// endDiff ends a --diff run: a line on stderr, and exit 1 when a file
// would change.
func endDiff(e *env, s summary, interrupted bool) error {
	if interrupted {
		fmt.Fprintln(e.stderr, "sessionls: interrupted")
		return exitError{ExitError}
	}
	l := fmt.Sprintf("Would fix %s in %s", textfmt.Plural(s.fixed, "finding", "findings"), textfmt.Plural(s.filesChanged, "file", "files"))
	if s.fixed == 0 {
		l = "No fixes to apply"
	}
	if s.moreUnsafe > 0 {
		l += fmt.Sprintf(" (%d more with --unsafe-fixes)", s.moreUnsafe)
	}
	fmt.Fprintln(e.stderr, l+"."+strings.ReplaceAll(strings.ReplaceAll(lossSummary(s), "deleted", "would delete"), "not fixed", "would not be fixed"))
	switch {
	case len(s.ioErrors) > 0:
		return exitError{ExitError}
	case s.filesChanged > 0:
		return exitError{ExitFindings}
	}
	return nil
}
