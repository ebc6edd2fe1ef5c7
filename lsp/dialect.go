package lsp

import (
	"io"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/analysis/fix"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// Dialects in the server (issue 21). Each document is read in one
// dialect: its `dialect` setting's (the editor's sessionls.dialect, else
// its sessionls.toml's), or with auto, the default, the one
// dialect.Detect finds in its text on open, found again whenever an edit
// touches the lines detection looked at (the first line JSON.parse
// accepts and those before it).
//
// A seed document is what it always was: an analysis.Document whose edits
// re-parse only the lines they touch. A document of another dialect keeps
// the same analysis.Document for its text and positions, but its report
// is Dialect.Analyze of the whole text (file.report), made lazily: an
// edit only marks it stale, and its diagnostics are published by one job
// posted behind the messages already queued (schedulePublish), so a burst
// of didChanges costs one analysis, not one each. Requests that need the
// report in between (hover, lenses, code actions) make it then. The text
// is bounded as every document's is (the transport's maxMessageSize, the
// queue's maxQueuedBytes). Diagnostics, lenses, hover, symbols, code
// actions (Dialect.Plan) and fix-all (Dialect.FixAll) all work from that
// report.

// plannedFix is a finding's fix as a non-seed dialect planned it, in the
// client's terms.
type plannedFix struct {
	title  string
	safety fix.Safety
	edits  []protocol.TextEdit
}

// fixKey names a finding that may have a fix: one per line and code.
type fixKey struct {
	line int
	code string
}

// isSeed says whether f is read by the engine itself (incrementally).
func (f *file) isSeed() bool {
	_, ok := f.dialect.(dialect.Seed)
	return f.dialect == nil || ok
}

// report is f's current analysis: the document's for seed, else the
// dialect's, made now if an edit or a setting made it stale.
func (f *file) report() *analysis.Report {
	if f.isSeed() {
		return f.doc.Report()
	}
	if f.alt == nil {
		data := []byte(f.doc.Text())
		f.alt = f.dialect.Analyze(data, f.opts)
		f.altFixes = planFixes(f.doc, f.dialect, data, f.alt.Findings)
	}
	return f.alt
}

// stale drops a non-seed report after its text or options changed.
func (f *file) stale() {
	f.alt, f.altFixes = nil, nil
	f.altTok, f.altTokErr = nil, nil
}

// plannedFixOf is the planned fix of the finding (line1, code) of a
// non-seed document.
func (f *file) plannedFixOf(line1 int, code string) (plannedFix, bool) {
	f.report()
	p, ok := f.altFixes[fixKey{line1, code}]
	return p, ok
}

// planFixes plans the fixes of findings in data (the text of doc) and
// locates their edits in the client's lines.
func planFixes(doc *analysis.Document, d dialect.Dialect, data []byte, findings []analysis.Finding) map[fixKey]plannedFix {
	fixes := d.Plan(data, findings)
	if len(fixes) == 0 {
		return nil
	}
	out := make(map[fixKey]plannedFix, len(fixes))
	for _, fx := range fixes {
		p := plannedFix{title: fx.Title, safety: fx.Safety}
		for _, e := range fx.Edits {
			sl, sc := fx.PositionIn(data, e.Start)
			el, ec := fx.PositionIn(data, e.End)
			p.edits = append(p.edits, protocol.TextEdit{
				Range:   protocol.Range{Start: clientPosition(doc, sl-1, sc), End: clientPosition(doc, el-1, ec)},
				NewText: e.New,
			})
		}
		out[fixKey{fx.Line, fx.Code}] = p
	}
	return out
}

// docReader reads a document's text from its lines, without joining
// them: dialect.Detect reads only as far as the line that decides (at
// most MaxSniff bytes), however long the document.
type docReader struct {
	doc *analysis.Document
	i   int // the line being read
	off int // bytes of it read
}

func (r *docReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.i < r.doc.LineCount() {
		l := r.doc.Line(r.i)
		if r.off < len(l) {
			k := copy(p[n:], l[r.off:])
			n += k
			r.off += k
			continue
		}
		if r.i+1 < r.doc.LineCount() { // a '\n' between lines
			p[n] = '\n'
			n++
		}
		r.i, r.off = r.i+1, 0
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// resolveDialect sets f's dialect from its settings, detecting it in its
// text for auto; it reports whether the dialect changed (its report is
// then stale).
func (s *server) resolveDialect(f *file) bool {
	st := s.effectiveSettings(f.uri)
	var d dialect.Dialect
	f.auto = st.Dialect.V == dialect.Auto || st.Dialect.V == ""
	if f.auto {
		f.det, _, _ = dialect.DetectIn(&docReader{doc: f.doc}, s.dialects) // reading lines cannot fail
		d = f.det.Dialect
		f.dialectWhy = "auto (" + st.Dialect.Source.String() + "), detected: " + f.det.Why
	} else {
		var err error
		if d, err = s.namedDialect(st.Dialect.V); err != nil {
			s.logger.Warn("dialect", zap.String("uri", string(f.uri)), zap.Error(err))
			d = dialect.Seed{}
			f.dialectWhy = "set by " + st.Dialect.Source.String() + ", but " + err.Error() + "; read as seed"
		} else {
			f.dialectWhy = "set by " + st.Dialect.Source.String()
		}
	}
	if f.dialect != nil && f.dialect.Name() == d.Name() {
		return false
	}
	f.dialect = d
	f.stale()
	return true
}

// namedDialect is the dialect a setting names, among the server's.
func (s *server) namedDialect(name string) (dialect.Dialect, error) {
	for _, d := range s.dialects {
		if d.Name() == name {
			return d, nil
		}
	}
	return dialect.Named(name) // its error
}

// headLimit is the client line from which an edit cannot change f's
// detection: the start of the first line Detect did not look at; -1 when
// any edit may (it looked at every line, or the setting is not auto and
// there is nothing to detect: then no edit needs it, see touchesHead).
func (f *file) headLimit() int {
	if f.det.Lines >= f.doc.LineCount() {
		return -1
	}
	return int(clientLine(f.doc, f.det.Lines+1))
}

// touchesHead reports whether the changes (applied in order) may change
// what Detect sees: a full-text change, or a range starting before limit
// (headLimit, computed before they were applied: a change after it moves
// no line before it).
func touchesHead(cs []contentChange, limit int) bool {
	for _, c := range cs {
		if c.Range == nil || limit < 0 || int(c.Range.Start.Line) < limit {
			return true
		}
	}
	return false
}

// schedulePublish publishes f's diagnostics from a job posted behind the
// messages already queued, once however many edits come before it runs
// (a non-seed document is analysed whole); at once when there is no
// worker to post to.
func (s *server) schedulePublish(f *file) {
	if f.publishQueued {
		return
	}
	if s.post == nil {
		s.publish(f)
		return
	}
	f.publishQueued = true
	if !s.post(func() {
		f.publishQueued = false
		if s.files.get(f.uri) == f {
			s.publish(f)
		}
	}) {
		f.publishQueued = false
	}
}
