package lsp

import (
	"fmt"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/textfmt"
	"go.lsp.dev/protocol"
)

// Diagnostics: one per finding, published with the document's version
// after every open and change, and cleared ([]) on close. For a client
// that fades Unnecessary-tagged ranges, the budget-cutoff finding is
// published as the faded region the model will not see (trimmedDiagnostic)
// rather than as a squiggle on the first kept line. A document out of sync
// gets only the out-of-sync diagnostic.

// diagnosticSource names sessionls in every diagnostic.
const diagnosticSource = "sessionls"

// codeOutOfSync is the code of the diagnostic published for a document
// whose text the server lost track of (not an engine finding: it cannot be
// turned off with the checks setting).
const codeOutOfSync = "out-of-sync"

// publish sends f's diagnostics for its current version.
func (s *server) publish(f *file) {
	var diags []protocol.Diagnostic
	if f.inSync() {
		diags = withFixData(f, toDiagnostics(f.uri, f.doc, f.report(), s.currentCaps().unnecessaryTag))
		if f.diskBOM {
			diags = append([]protocol.Diagnostic{bomDiagnostic()}, diags...)
		}
	} else {
		diags = []protocol.Diagnostic{outOfSyncDiagnostic(f.syncErr)}
	}
	s.notify(protocol.MethodTextDocumentPublishDiagnostics, &publishDiagnosticsParams{
		URI: f.uri, Version: f.version, Diagnostics: diags,
	})
}

// outOfSyncDiagnostic replaces every finding of a document out of sync:
// they describe a text the client does not have, on lines that may not be
// where the client shows them, so none is kept. It sits at the start of
// line 1, which every text has.
func outOfSyncDiagnostic(err error) protocol.Diagnostic {
	return protocol.Diagnostic{
		Severity: protocol.DiagnosticSeverityError,
		Code:     codeOutOfSync,
		Source:   diagnosticSource,
		Message: fmt.Sprintf("sessionls is out of sync with this file: an edit could not be applied (%v). "+
			"Its findings are hidden until you reopen the file.", err),
	}
}

// clearDiagnostics publishes an empty list for f (closed, or no longer a
// session file).
func (s *server) clearDiagnostics(f *file) {
	s.notify(protocol.MethodTextDocumentPublishDiagnostics, &publishDiagnosticsParams{
		URI: f.uri, Version: f.version, Diagnostics: []protocol.Diagnostic{},
	})
}

// maxDiagnostics bounds the diagnostics published for one document, as
// gopls and ruff bound theirs: past it, one summary diagnostic says how
// many findings are left out. A published diagnostic costs about 1 KiB
// while it is built and encoded (the Diagnostic, its message and range,
// its fix data, its JSON), so a publication costs at most about 1 MiB,
// however many findings the document has (a file of a million invalid
// lines used to publish a million, 3.3 GB).
const maxDiagnostics = 1000

// docOptions are the options a document is analysed with: opts, keeping
// the first maxDiagnostics findings of each code and counting the rest
// (Report.Omitted). The diagnostics published are the same: the first
// maxDiagnostics by severity and line hold at most maxDiagnostics of any
// code, the first of it. A document of a million refused lines then costs
// its lines, not a million findings (~330 bytes each).
func docOptions(opts analysis.Options) analysis.Options {
	opts.MaxFindingsPerCode = maxDiagnostics
	// The lines of refused lines past the cap, as check keeps them: a
	// dialect reads them (which records its loader skips); a few bytes
	// for a run of lines.
	opts.OmittedLines = map[string]bool{}
	for _, c := range analysis.Codes() {
		if analysis.IsRefusal(c) {
			opts.OmittedLines[c] = true
		}
	}
	return opts
}

// codeMoreFindings is the code of the summary diagnostic (not an engine
// finding: it cannot be turned off with the checks setting).
const codeMoreFindings = "more-findings"

// toDiagnostics converts rep's findings, a report on doc: all of them, or
// maxDiagnostics of them and a summary (see keptFindings). It never
// returns nil: a nil slice would be published as null.
func toDiagnostics(uri protocol.DocumentURI, doc *analysis.Document, rep *analysis.Report, fade bool) []protocol.Diagnostic {
	omitted := 0
	for _, o := range rep.Omitted {
		omitted += o.N
	}
	kept, left := keptFindings(rep.Findings, omitted, maxDiagnostics)
	out := make([]protocol.Diagnostic, 0, min(len(rep.Findings), maxDiagnostics)+1)
	for i, f := range rep.Findings {
		if kept != nil && !kept[i] {
			continue
		}
		if d, ok := publishedDiagnostic(uri, doc, rep, f, fade); ok {
			out = append(out, d)
		}
	}
	if left > 0 {
		out = append(out, moreFindingsDiagnostic(doc, rep, kept, left))
	}
	return out
}

// keptFindings chooses which of fs are published when, with the omitted
// findings the report only counts, there are more than n: the
// budget-cutoff finding (it is the document's main lens on the budget),
// then the most severe, the earliest first among equals. kept is nil when
// every finding is published; left counts the others.
func keptFindings(fs []analysis.Finding, omitted, n int) (kept []bool, left int) {
	if len(fs)+omitted <= n {
		return nil, 0
	}
	kept = make([]bool, len(fs))
	room := n
	for i, f := range fs {
		if f.Code == analysis.CodeBudgetCutoff && room > 0 {
			kept[i] = true
			room--
		}
	}
	for _, sev := range []analysis.Severity{analysis.SeverityError, analysis.SeverityWarning, analysis.SeverityInfo} {
		for i, f := range fs {
			if room == 0 {
				break
			}
			if !kept[i] && f.Severity == sev {
				kept[i] = true
				room--
			}
		}
	}
	for i := range fs {
		if room == 0 {
			break
		}
		if !kept[i] {
			kept[i] = true
			room--
		}
	}
	return kept, len(fs) + omitted - min(n, len(fs))
}

// moreFindingsDiagnostic says how many findings were left out, on the
// line of the first of them, with that finding's severity.
func moreFindingsDiagnostic(doc *analysis.Document, rep *analysis.Report, kept []bool, left int) protocol.Diagnostic {
	// The earliest left out: listed and not kept, or the first omitted
	// of a code.
	firstLine := 0
	for i := range kept {
		if !kept[i] {
			firstLine = rep.Findings[i].Line
			break
		}
	}
	for _, o := range rep.Omitted {
		if firstLine == 0 || o.First < firstLine {
			firstLine = o.First
		}
	}
	r := findingRange(doc, firstLine, line.Span{})
	return protocol.Diagnostic{
		Range:    protocol.Range{Start: r.Start, End: r.Start},
		Severity: protocol.DiagnosticSeverityInformation,
		Code:     codeMoreFindings,
		Source:   diagnosticSource,
		Message: fmt.Sprintf("%s more not shown (the first on line %d): sessionls publishes at most %s diagnostics per file "+
			"(run `sessionls check` on it for every finding)",
			textfmt.Plural(int64(left), "finding", "findings"), firstLine, textfmt.Thousands(int64(maxDiagnostics))),
	}
}

// publishedDiagnostic is finding f as published: toDiagnostic, except that
// with fade the budget-cutoff finding becomes trimmedDiagnostic (or nothing,
// when the budget trims no line).
func publishedDiagnostic(uri protocol.DocumentURI, doc *analysis.Document, rep *analysis.Report, f analysis.Finding, fade bool) (protocol.Diagnostic, bool) {
	if fade && f.Code == analysis.CodeBudgetCutoff {
		return trimmedDiagnostic(doc, rep)
	}
	return toDiagnostic(uri, doc, f), true
}

// trimmedDiagnostic spans the lines above the budget's first kept line,
// the part of the file the model will not see: a hint with the Unnecessary
// tag, which editors draw faded, as they draw unused code. ok is false when
// the budget does not cut or trims no line.
func trimmedDiagnostic(doc *analysis.Document, rep *analysis.Report) (d protocol.Diagnostic, ok bool) {
	c := rep.Cutoff
	if c == nil || rep.CutoffErr != nil || c.FirstKeptLine <= 1 {
		return d, false
	}
	last := c.FirstKeptLine - 1 // the last trimmed line, 1-based
	dropped := rep.TrimmedMessages()
	return protocol.Diagnostic{
		Range: protocol.Range{
			Start: protocol.Position{},
			End:   findingRange(doc, last, line.Span{}).End,
		},
		Severity: protocol.DiagnosticSeverityHint,
		Code:     analysis.CodeBudgetCutoff,
		Source:   diagnosticSource,
		Message: fmt.Sprintf("trimmed by budget %s: the model will not see %s (%s)", textfmt.Thousands(c.Budget),
			textfmt.LineRange(1, last), textfmt.Plural(dropped, "message", "messages")),
		Tags: []protocol.DiagnosticTag{protocol.DiagnosticTagUnnecessary},
	}, true
}

func toDiagnostic(uri protocol.DocumentURI, doc *analysis.Document, f analysis.Finding) protocol.Diagnostic {
	d := protocol.Diagnostic{
		Range:    findingRange(doc, f.Line, f.Span),
		Severity: toSeverity(f.Severity),
		Code:     f.Code,
		Source:   diagnosticSource,
		Message:  f.Message,
	}
	if href := analysis.RuleDocURL(f.Code); href != "" {
		// The code links to its rule's documentation, as ESLint's and
		// ruff's do (LSP 3.16 codeDescription).
		d.CodeDescription = &protocol.CodeDescription{Href: protocol.URI(href)}
	}
	for _, r := range f.Related {
		d.RelatedInformation = append(d.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: uri, Range: findingRange(doc, r.Line, r.Span)},
			Message:  r.Message,
		})
	}
	return d
}

func toSeverity(s analysis.Severity) protocol.DiagnosticSeverity {
	switch s {
	case analysis.SeverityError:
		return protocol.DiagnosticSeverityError
	case analysis.SeverityWarning:
		return protocol.DiagnosticSeverityWarning
	case analysis.SeverityInfo:
		return protocol.DiagnosticSeverityInformation
	}
	return protocol.DiagnosticSeverityHint
}
