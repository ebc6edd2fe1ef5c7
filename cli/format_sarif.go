package cli

import (
	"fmt"
	"io"
	"net/url"
	"path/filepath"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
)

// The sarif format: one SARIF 2.1.0 log with rules, results and fixes.

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
	HelpURI              string         `json:"helpUri"` // the rule's section of docs/rules.md
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
	// For findings past the cap: the file, and the rule (associatedRule).
	Locations  []sarifFileLocation `json:"locations,omitempty"`
	Descriptor *sarifDescriptor    `json:"associatedRule,omitempty"`
}

// sarifFileLocation names a whole file (no region).
type sarifFileLocation struct {
	PhysicalLocation struct {
		ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	} `json:"physicalLocation"`
}

type sarifDescriptor struct {
	ID string `json:"id"`
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
	// Pick, on a candidate of an ambiguous run, is the LINE:N of check
	// --pick that applies it.
	Pick string `json:"pick,omitempty"`
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
	notes   []sarifNotification // findings past the cap, by file and code
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

func (s *sarifFormatter) file(path string, findings []analysis.Finding, fixes fileFixes, more []omitted) error {
	uri := sarifURI(path)
	for _, m := range more {
		var loc sarifFileLocation
		loc.PhysicalLocation.ArtifactLocation = sarifArtifactLocation{uri}
		s.notes = append(s.notes, sarifNotification{Level: "note", Message: sarifText{path + ": " + m.message()},
			Locations: []sarifFileLocation{loc}, Descriptor: &sarifDescriptor{ID: m.code}})
	}
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
		// An ambiguous run's candidates: one fix each, unsafe, with the
		// --pick that applies it.
		for _, c := range fixes.candidatesAt(i) {
			sf := sarifFixOf(uri, &c.fixInfo)
			sf.Properties.Pick = c.pick
			r.Fixes = append(r.Fixes, sf)
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
			HelpURI:              r.DocURL(),
		})
	}
	inv := sarifInvocation{ExecutionSuccessful: len(sum.ioErrors) == 0}
	for _, e := range sum.ioErrors {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
			sarifNotification{Level: "error", Message: sarifText{e}})
	}
	inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, s.notes...)
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
