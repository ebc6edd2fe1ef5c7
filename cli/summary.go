package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/ctxmap"
	"github.com/sessionls/sessionls/analysis/ctxmap/mappage"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// stepSummary is check's --step-summary: the context map's breakdown of
// the files checked, appended as Markdown to the file $GITHUB_STEP_SUMMARY
// names (GitHub Actions shows it on the run's summary page). Each file is
// mapped in the same pass that checks it: a ctxmap.Builder observes the
// engine's messages, so the summary costs a few bytes per message and no
// second read.
type stepSummary struct {
	on    bool
	path  string
	files []*summaryFile // by target; nil: not mapped (a target that failed early)
}

// summaryFile is one target's builder, then what the summary keeps of its
// map (the tables; the bins are let go).
type summaryFile struct {
	path string
	b    *ctxmap.Builder
	m    *ctxmap.Map
	err  error
}

// Observe passes the engine's messages to the builder.
func (f *summaryFile) Observe(m *analysis.Message, owner int) { f.b.Observe(m, owner) }

// done builds the map from the target's report.
func (f *summaryFile) done(rep *analysis.Report, budget int64) {
	m, err := f.b.Build(rep, ctxmap.Config{Budget: budget, Largest: 5})
	f.b = nil
	if err != nil {
		f.err = err
		return
	}
	m.Bins = nil
	f.m = m
}

func newStepSummary(fs *pflag.FlagSet) *stepSummary {
	s := &stepSummary{}
	fs.BoolVar(&s.on, "step-summary", false, "append the context map's breakdown (cost by role and tool name, where the budget cuts, the largest units) as Markdown to the file $GITHUB_STEP_SUMMARY names: the GitHub Actions job summary")
	return s
}

// prepare gives every target a builder, and wraps e's engine so that each
// report reaches its target's builder. It fails when the summary cannot be
// written (no $GITHUB_STEP_SUMMARY) or makes no sense (--fix, --diff).
func (s *stepSummary) prepare(e *env, o checkOptions, targets []target) error {
	if s == nil || !s.on {
		return nil
	}
	if o.fixing() {
		return usagef("--step-summary maps the files as checked: it cannot be used with --fix or --diff")
	}
	if s.path = e.getenv("GITHUB_STEP_SUMMARY"); s.path == "" {
		return usagef("--step-summary appends to the file $GITHUB_STEP_SUMMARY names, and it is not set (GitHub Actions sets it in a job)")
	}
	s.files = make([]*summaryFile, len(targets))
	for i := range targets {
		if targets[i].err != nil {
			continue
		}
		f := &summaryFile{path: targets[i].path, b: ctxmap.NewBuilder()}
		s.files[i] = f
		targets[i].opts.Observer = f
	}
	inner := e.analyze
	e.analyze = func(ctx context.Context, d dialect.Dialect, r io.Reader, opts analysis.Options) (*analysis.Report, error) {
		rep, err := inner(ctx, d, r, opts)
		if f, ok := opts.Observer.(*summaryFile); ok && err == nil {
			f.done(rep, opts.Budget)
		}
		return rep, err
	}
	return nil
}

// Bounds of the Markdown: GitHub keeps at most 1 MiB of a step's summary.
const (
	summaryFileRows    = 100
	summaryToolRows    = 30
	summaryLargestRows = 10
	summaryCell        = 120 // bytes of a name in a cell
)

// write appends the summary. An error is reported on stderr; the caller
// exits 2.
func (s *stepSummary) write(e *env) error {
	if s == nil || !s.on {
		return nil
	}
	md := s.markdown()
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		_, err = f.WriteString(md)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "sessionls: cannot write the step summary to %s: %v\n", textfmt.Sanitize(s.path), err)
		return exitError{ExitError}
	}
	return nil
}

// mdCell makes s safe in a Markdown table cell: no pipes, newlines or
// markup, at most summaryCell bytes.
func mdCell(s string) string {
	s = textfmt.Sanitize(s)
	s = strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "`", "'", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`).Replace(s)
	if len(s) > summaryCell {
		k := summaryCell
		for k > 0 && s[k]&0xC0 == 0x80 {
			k--
		}
		s = s[:k] + "…"
	}
	return s
}

func (s *stepSummary) markdown() string {
	var b strings.Builder
	var mapped []*summaryFile
	for _, f := range s.files {
		if f != nil && f.m != nil {
			mapped = append(mapped, f)
		}
	}
	b.WriteString("## sessionls: where the context goes\n\n")
	if len(mapped) == 0 {
		b.WriteString("No session file was mapped.\n\n")
		return b.String()
	}
	pctOf := func(n, total int64) string { return mappage.Share(n, total) }

	// One row per file.
	b.WriteString("| file | loads | messages | units | chars | budget cuts |\n|---|---|--:|--:|--:|---|\n")
	for i, f := range mapped {
		if i == summaryFileRows {
			fmt.Fprintf(&b, "| and %s more files | | | | | |\n", textfmt.Thousands(len(mapped)-i))
			break
		}
		m := f.m
		loads := "yes"
		if m.LoadFailure != nil {
			loads = "**no**: " + mdCell(strings.TrimPrefix(m.LoadFailure.Summary, "the file does not load "))
		}
		cut := "no budget"
		switch bu := m.Budget; {
		case bu == nil:
		case bu.Error != "" && m.LoadFailure != nil:
			cut = "nothing (it does not load)"
		case bu.Error != "":
			cut = fmt.Sprintf("%s: **%s**", textfmt.Thousands(bu.Limit), mdCell(bu.Error))
		default:
			cut = fmt.Sprintf("%s keeps from line %d (%s of %s units, %s)", textfmt.Thousands(bu.Limit), bu.FirstKeptLine,
				textfmt.Thousands(bu.KeptUnits), textfmt.Thousands(m.Units), pctOf(bu.KeptChars, m.TotalChars))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", mdCell(f.path), loads,
			textfmt.Thousands(m.Messages), textfmt.Thousands(m.Units), textfmt.Thousands(m.TotalChars), cut)
	}

	// Cost by role and by tool name, over every file.
	var total int64
	var msgs int
	roles := make([]ctxmap.Row, 3)
	tools := map[string]*ctxmap.Row{}
	for _, f := range mapped {
		total += f.m.TotalChars
		msgs += f.m.Messages
		for i, r := range f.m.Roles {
			roles[i].Label = r.Label
			roles[i].Messages += r.Messages
			roles[i].Chars += r.Chars
		}
		for _, r := range f.m.Tools {
			t := tools[r.Label]
			if t == nil {
				t = &ctxmap.Row{Label: r.Label}
				tools[r.Label] = t
			}
			t.Messages += r.Messages
			t.Chars += r.Chars
		}
	}
	scope := ""
	if len(mapped) > 1 {
		scope = fmt.Sprintf(" (all %s files)", textfmt.Thousands(len(mapped)))
	}
	fmt.Fprintf(&b, "\n### Cost by role%s\n\n| role | messages | chars | share |\n|---|--:|--:|--:|\n", scope)
	for _, r := range roles {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.Label, textfmt.Thousands(r.Messages), textfmt.Thousands(r.Chars), pctOf(r.Chars, total))
	}
	fmt.Fprintf(&b, "| **total** | **%s** | **%s** | **100%%** |\n", textfmt.Thousands(msgs), textfmt.Thousands(total))
	if len(tools) > 0 {
		rows := make([]*ctxmap.Row, 0, len(tools))
		for _, r := range tools {
			rows = append(rows, r)
		}
		slices.SortFunc(rows, func(a, c *ctxmap.Row) int {
			if a.Chars != c.Chars {
				return int(min(max(c.Chars-a.Chars, -1), 1))
			}
			return strings.Compare(a.Label, c.Label)
		})
		fmt.Fprintf(&b, "\n### Tool results by tool name%s\n\n| tool | results | chars | share |\n|---|--:|--:|--:|\n", scope)
		for i, r := range rows {
			if i == summaryToolRows {
				fmt.Fprintf(&b, "| and %s more | | | |\n", textfmt.Thousands(len(rows)-i))
				break
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdCell(r.Label), textfmt.Thousands(r.Messages), textfmt.Thousands(r.Chars), pctOf(r.Chars, total))
		}
	}

	// The largest units, over every file.
	type big struct {
		f *summaryFile
		u ctxmap.UnitInfo
	}
	var bigs []big
	for _, f := range mapped {
		for _, u := range f.m.Largest {
			bigs = append(bigs, big{f, u})
		}
	}
	slices.SortStableFunc(bigs, func(a, c big) int { return int(min(max(c.u.Chars-a.u.Chars, -1), 1)) })
	if len(bigs) > 0 {
		b.WriteString("\n### Largest units\n\n| file | lines | messages | chars | share of its file | made of |\n|---|---|--:|--:|--:|---|\n")
		for i, x := range bigs {
			if i == summaryLargestRows {
				break
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", mdCell(x.f.path), textfmt.LineRange(x.u.StartLine, x.u.EndLine),
				textfmt.Thousands(x.u.Messages), textfmt.Thousands(x.u.Chars), pctOf(x.u.Chars, x.f.m.TotalChars),
				mdCell(mappage.MadeOf(x.f.m, x.u.Parts, func(p ctxmap.Part) int64 { return p.Chars })))
		}
	}
	b.WriteString("\nThe full picture of one file: `sessionls map -o map.html FILE`.\n\n")
	return b.String()
}
