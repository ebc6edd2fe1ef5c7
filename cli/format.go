package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/textfmt"
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

	// Fixes. Without --fix: how many of the findings have a safe fix and
	// how many an unsafe one. With --fix or --diff: how many findings were
	// (would be) fixed in how many files, and how many more --unsafe-fixes
	// would fix.
	fixable, unsafeFixable   int
	fixed, moreUnsafe        int
	filesFixed, filesChanged int
	fixMode                  bool
}

// formatter writes check results. file is called once per checked file in
// argument order; end once, after the last file.
type formatter interface {
	file(path string, findings []analysis.Finding, fixes fileFixes) error
	end(s summary) error
}

func newFormatter(name string, w io.Writer, color bool, version string) (formatter, error) {
	switch name {
	case formatText:
		return &textFormatter{w: w, color: color, buf: bufio.NewWriter(w)}, nil
	case formatJSON:
		return &jsonFormatter{w: w, buf: bufio.NewWriter(w)}, nil
	case formatGitHub:
		return &githubFormatter{w: w, buf: bufio.NewWriter(w)}, nil
	case formatSARIF:
		return &sarifFormatter{w: w, version: version}, nil
	}
	return nil, usagef("unknown --format %q (want text, json, github or sarif)", name)
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

// ---- text ----

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

func (t *textFormatter) file(path string, findings []analysis.Finding, fixes fileFixes) error {
	p := sanitize(path)
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
			t.paint(c, sev+"["+f.Code+"]"), mark, sanitize(f.Message))
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
	if n := len(s.ioErrors); n > 0 {
		line = strings.TrimSuffix(line, ".") + "; " + textfmt.Plural(n, "path", "paths") + " could not be read."
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
		return l + "."
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
	fmt.Fprintln(e.stderr, l+".")
	switch {
	case len(s.ioErrors) > 0:
		return exitError{ExitError}
	case s.filesChanged > 0:
		return exitError{ExitFindings}
	}
	return nil
}

// sanitize makes a path or message safe to print on a terminal: control
// characters (which a hostile file could put in a message quoting it) are
// shown escaped instead of being interpreted.
func sanitize(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			clean = false
			break
		}
	}
	if clean && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ---- json ----

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
}

type jsonFormatter struct {
	w     io.Writer
	count int
	buf   *bufio.Writer
}

// marshal is json.Marshal without HTML escaping (messages quote "<" often).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

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

// file streams the array one object per line, so a run over many files
// never holds every finding.
func (j *jsonFormatter) file(path string, findings []analysis.Finding, fixes fileFixes) error {
	for i, f := range findings {
		var safety *string
		if fi := fixes.at(i); fi != nil {
			s := fi.safety.String()
			safety = &s
		}
		b, err := marshal(jsonFinding{
			File: path, Line: f.Line, Column: startCol(f), EndLine: f.Line, EndColumn: endCol(f),
			Severity: f.Severity.String(), Code: f.Code, Message: f.Message, Fix: safety,
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

// ---- github ----

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

// ---- sarif ----

const (
	sarifSchema    = "https://json.schemastore.org/sarif-2.1.0.json"
	informationURI = "https://github.com/sessionls/sessionls"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	ColumnKind  string            `json:"columnKind"`
	Results     []sarifResult     `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	DefaultConfiguration sarifRuleLevel `json:"defaultConfiguration"`
}

type sarifRuleLevel struct {
	Level string `json:"level"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId"`
	RuleIndex        int             `json:"ruleIndex"`
	Level            string          `json:"level"`
	Message          sarifText       `json:"message"`
	Locations        []sarifLocation `json:"locations"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
	Fixes            []sarifFix      `json:"fixes,omitempty"`
}

// sarifFix is a result's fix (SARIF 2.1.0 section 3.55): its title, and
// the replacements in the file. properties.safety says whether it is safe
// ("unsafe": it drops or invents data, and a person should confirm it).
type sarifFix struct {
	Description     sarifText             `json:"description"`
	ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
	Properties      sarifFixProperties    `json:"properties"`
}

type sarifFixProperties struct {
	Safety string `json:"safety"`
}

type sarifArtifactChange struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Replacements     []sarifReplacement    `json:"replacements"`
}

type sarifReplacement struct {
	DeletedRegion   sarifFixRegion `json:"deletedRegion"`
	InsertedContent *sarifText     `json:"insertedContent,omitempty"`
}

// sarifFixRegion locates an edit both ways, consistently: lines and UTF-16
// columns (the run's columnKind; the end exclusive, a deletion of a whole
// line ending at column 1 of the next) and bytes of the file.
type sarifFixRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
	ByteOffset  int `json:"byteOffset"`
	ByteLength  int `json:"byteLength"`
}

func sarifFixOf(uri string, fi *fixInfo) sarifFix {
	ch := sarifArtifactChange{ArtifactLocation: sarifArtifactLocation{uri}}
	for _, r := range fi.regions {
		rp := sarifReplacement{DeletedRegion: sarifFixRegion{
			StartLine: r.startLine, StartColumn: r.startCol, EndLine: r.endLine, EndColumn: r.endCol,
			ByteOffset: r.offset, ByteLength: r.length,
		}}
		if r.insert != "" {
			rp.InsertedContent = &sarifText{r.insert}
		}
		ch.Replacements = append(ch.Replacements, rp)
	}
	return sarifFix{
		Description:     sarifText{fi.title},
		ArtifactChanges: []sarifArtifactChange{ch},
		Properties:      sarifFixProperties{Safety: fi.safety.String()},
	}
}

type sarifLocation struct {
	ID               *int                  `json:"id,omitempty"`
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	Message          *sarifText            `json:"message,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           sarifRegion           `json:"region"`
}

type sarifArtifactLocation struct {
	URI string `json:"uri"`
}

// sarifRegion: columns are omitted (0) for a whole-line region.
type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn,omitempty"`
}

func regionOf(ln int, sp line.Span) sarifRegion {
	if sp == (line.Span{}) {
		return sarifRegion{StartLine: ln, EndLine: ln}
	}
	return sarifRegion{ln, sp.StartCol + 1, ln, sp.EndCol + 1}
}

// sarifFormatter collects every result: a SARIF log is one JSON document
// whose rules precede its results.
type sarifFormatter struct {
	w       io.Writer
	version string
	results []sarifResult
}

// sarifURI turns a displayed path into a URI reference: relative paths stay
// relative (resolved against the checkout by code scanning), with
// forward slashes and percent-escapes; absolute paths become file URIs.
func sarifURI(path string) string {
	slash := filepath.ToSlash(path)
	if filepath.IsAbs(path) {
		return (&url.URL{Scheme: "file", Path: slash}).String()
	}
	return (&url.URL{Path: slash}).String()
}

func (s *sarifFormatter) file(path string, findings []analysis.Finding, fixes fileFixes) error {
	uri := sarifURI(path)
	for i, f := range findings {
		_, idx, _ := lookupRule(f.Code)
		r := sarifResult{
			RuleID:    f.Code,
			RuleIndex: idx,
			Level:     sarifLevel(f.Severity),
			Message:   sarifText{f.Message},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{
				ArtifactLocation: sarifArtifactLocation{uri},
				Region:           regionOf(f.Line, f.Span),
			}}},
		}
		for i, rel := range f.Related {
			id := i + 1
			r.RelatedLocations = append(r.RelatedLocations, sarifLocation{
				ID: &id,
				PhysicalLocation: sarifPhysicalLocation{
					ArtifactLocation: sarifArtifactLocation{uri},
					Region:           regionOf(rel.Line, rel.Span),
				},
				Message: &sarifText{rel.Message},
			})
		}
		if fi := fixes.at(i); fi != nil {
			r.Fixes = []sarifFix{sarifFixOf(uri, fi)}
		}
		if idx < 0 {
			// A code this build does not describe: still a valid result,
			// without the index into rules.
			r.RuleIndex = -1
		}
		s.results = append(s.results, r)
	}
	return nil
}

func (s *sarifFormatter) end(sum summary) error {
	var rs []sarifRule
	for _, r := range rules() {
		rs = append(rs, sarifRule{
			ID: r.Code, Name: r.Code, ShortDescription: sarifText{r.Summary},
			DefaultConfiguration: sarifRuleLevel{sarifLevel(r.Severity)},
		})
	}
	inv := sarifInvocation{ExecutionSuccessful: len(sum.ioErrors) == 0}
	for _, e := range sum.ioErrors {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
			sarifNotification{Level: "error", Message: sarifText{e}})
	}
	results := s.results
	if results == nil {
		results = []sarifResult{}
	}
	log := sarifLog{
		Schema:  sarifSchema,
		Version: "2.1.0",
		Runs: []sarifRun{{
			Tool: sarifTool{Driver: sarifDriver{
				Name: "sessionls", Version: s.version, InformationURI: informationURI, Rules: rs,
			}},
			Invocations: []sarifInvocation{inv},
			ColumnKind:  "utf16CodeUnits",
			Results:     results,
		}},
	}
	b, err := marshalIndent(log)
	if err != nil {
		return fmt.Errorf("encoding SARIF: %w", err)
	}
	_, err = s.w.Write(b)
	return err
}
