package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/analysis/line"
)

// Output formats of `check`.
const (
	formatText   = "text"
	formatJSON   = "json"
	formatGitHub = "github"
	formatSARIF  = "sarif"
)

// summary is what the end of a check run knows.
type summary struct {
	errors, warnings, infos int
	filesWithFindings       int
	filesChecked            int
	ioErrors                []string // "path: reason", for SARIF notifications
	// writeErrors counts the ioErrors that are failures to write a fixed
	// file (refused or failed), not to read one.
	writeErrors int

	// Fixes. Without --fix: how many of the findings have a safe fix and
	// how many an unsafe one. With --fix or --diff: how many findings were
	// (would be) fixed in how many files, and how many more --unsafe-fixes
	// would fix.
	fixable, unsafeFixable int
	// omitted counts the findings past maxListedPerCode (in the totals,
	// not listed).
	omitted           int
	fixed, moreUnsafe int
	// lost: what the unsafe fixes deleted; ambiguous: runs of interleaved
	// pieces left unfixed because they pair more than one way.
	lost                     fix.Loss
	ambiguous                int
	filesFixed, filesChanged int
	fixMode                  bool
}

// formatter writes check results. file is called once per checked file in
// argument order, with the findings listed and those past the cap counted
// by code (more); end once, after the last file.
type formatter interface {
	file(path string, findings []analysis.Finding, fixes fileFixes, more []omitted) error
	end(s summary) error
}

// outputFormat is one --format of `check`: its name, what it shows, and
// how to make its formatter. Adding a format is one entry here and a file
// format_<name>.go; check does only the work the format needs, and its
// --help lists the formats from here.
type outputFormat struct {
	name string
	doc  string // a few words for --help
	// fixes: it marks each finding's fix ([fix], json's "fix", SARIF's
	// fixes), so a file with fixable findings is read again for them.
	fixes bool
	// fixRegions: it shows each fix's edits, located (SARIF's
	// artifactChanges), with the fix's title.
	fixRegions bool
	// document: its output is one document (a JSON array, a SARIF log),
	// closed even when the check is interrupted so it stays readable.
	document bool
	// withDiff: it can stand beside --diff (the diff takes stdout, the
	// summary stderr).
	withDiff bool
	new      func(w io.Writer, color bool, version string) formatter
}

// outputFormats lists the formats, in the order --help names them.
func outputFormats() []outputFormat {
	return []outputFormat{
		{name: formatText, doc: "one line per finding and a summary", fixes: true, withDiff: true,
			new: func(w io.Writer, color bool, _ string) formatter {
				return &textFormatter{w: w, color: color, buf: bufio.NewWriter(w)}
			}},
		{name: formatJSON, doc: "a JSON array of findings", fixes: true, document: true,
			new: func(w io.Writer, _ bool, _ string) formatter {
				return &jsonFormatter{w: w, buf: bufio.NewWriter(w)}
			}},
		{name: formatGitHub, doc: "GitHub Actions annotations", new: func(w io.Writer, _ bool, _ string) formatter {
			return &githubFormatter{w: w, buf: bufio.NewWriter(w)}
		}},
		{name: formatSARIF, doc: "a SARIF 2.1.0 log with fixes", fixes: true, fixRegions: true, document: true,
			new: func(w io.Writer, _ bool, version string) formatter {
				return &sarifFormatter{w: w, version: version}
			}},
	}
}

// newFormatter makes the formatter of the format called name.
func newFormatter(name string, w io.Writer, color bool, version string) (formatter, error) {
	f, err := formatNamed(name)
	if err != nil {
		return nil, err
	}
	return f.new(w, color, version), nil
}

// formatNamed is the format called name, or a usage error naming them all.
func formatNamed(name string) (outputFormat, error) {
	for _, f := range outputFormats() {
		if f.name == name {
			return f, nil
		}
	}
	return outputFormat{}, usagef("unknown --format %q (want %s)", name, formatNames())
}

// formatNames is "text, json, github or sarif".
func formatNames() string {
	var names []string
	for _, f := range outputFormats() {
		names = append(names, f.name)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// formatFlagHelp is --format's help: every format and what it prints.
func formatFlagHelp() string {
	var parts []string
	for _, f := range outputFormats() {
		parts = append(parts, f.name+" ("+f.doc+")")
	}
	return "output `FORMAT`: " + strings.Join(parts, ", ")
}

// Positions: every format prints 1-based lines and 1-based columns counted
// in UTF-16 code units (what LSP and editors use). The end column is
// exclusive: it is the column just after the last character of the range,
// as ruff's end_location and SARIF's endColumn.
//
// A finding about a whole line (swept-message, budget-cutoff, …) has the
// zero span: text and json show it at column 1 with an empty range
// (endColumn 1); github and sarif leave the columns out, which both define
// as "the whole line".
func startCol(f analysis.Finding) int { return f.Span.StartCol + 1 }
func endCol(f analysis.Finding) int   { return f.Span.EndCol + 1 }

func wholeLine(f analysis.Finding) bool { return f.Span == line.Span{} }

func marshalIndent(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
