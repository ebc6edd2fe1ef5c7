package cli

import (
	"bufio"
	"fmt"
	"io"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// The json format: one array of findings, an object per finding.

// jsonFinding is one element of `check --format json`. Keys and their order
// are part of the interface.
type jsonFinding struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	Severity  string `json:"severity"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	// Fix is "safe", "unsafe" or null: whether --fix (or --fix
	// --unsafe-fixes) repairs the finding.
	Fix *string `json:"fix"`
	// Omitted, on the last finding listed of a code in a file, is how many
	// more findings of that code the file has: only the first
	// maxListedPerCode of a code are listed. Absent otherwise.
	Omitted int `json:"omitted,omitempty"`
	// Candidates, on the first finding of a run of interleaved pieces
	// that pair validly more than one way, are its candidate fixes (none
	// applied by --fix): pick is LINE:N for check --pick.
	Candidates []jsonCandidate `json:"candidates,omitempty"`
}

type jsonCandidate struct {
	Pick  string `json:"pick"`
	Title string `json:"title"`
}

type jsonFormatter struct {
	w     io.Writer
	count int
	buf   *bufio.Writer
}

// file streams the array one object per line, so a run over many files
// never holds every finding.
func (j *jsonFormatter) file(path string, findings []analysis.Finding, fixes fileFixes, more []omitted) error {
	last := map[int]int{} // index of the last finding of a code → how many more
	for _, m := range more {
		for i := len(findings) - 1; i >= 0; i-- {
			if findings[i].Code == m.code {
				last[i] = m.n
				break
			}
		}
	}
	for i, f := range findings {
		var safety *string
		if fi := fixes.at(i); fi != nil {
			s := fi.safety.String()
			safety = &s
		}
		b, err := textfmt.JSON(jsonFinding{
			File: path, Line: f.Line, Column: startCol(f), EndLine: f.Line, EndColumn: endCol(f),
			Severity: f.Severity.String(), Code: f.Code, Message: f.Message, Fix: safety,
			Omitted: last[i], Candidates: jsonCandidates(fixes.candidatesAt(i)),
		})
		if err != nil {
			return fmt.Errorf("encoding a finding of %s: %w", path, err)
		}
		if j.count == 0 {
			j.buf.WriteString("[\n  ")
		} else {
			j.buf.WriteString(",\n  ")
		}
		j.buf.Write(b)
		j.count++
	}
	return j.buf.Flush()
}

func (j *jsonFormatter) end(summary) error {
	var err error
	if j.count == 0 {
		_, err = io.WriteString(j.w, "[]\n")
	} else {
		_, err = io.WriteString(j.w, "\n]\n")
	}
	return err
}
