package cli

import (
	"bufio"
	_ "embed"
	"fmt"
	"html"
	"html/template"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/ctxmap"
	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/textfmt"
)

var (
	//go:embed mappage/page.html
	mapPageHTML string
	//go:embed mappage/page.css
	mapPageCSS string
	//go:embed mappage/page.js
	mapPageJS string
)

var mapTemplate = template.Must(template.New("map").Parse(mapPageHTML))

func newMapCmd(e *env) *cobra.Command {
	var (
		flags budgetFlags
		out   string
		cf    configFlags
	)
	flags.optional = true
	cmd := &cobra.Command{
		Use:   "map [--budget N | --max-tokens N] [--tokens] [--tokenizer ENC] [-o OUT.html] FILE",
		Short: "Draw where a session's context goes, and where the budget cuts, as one HTML page",
		Long: `Write the context map of FILE: one self-contained HTML page (its CSS and
script inline, nothing loaded from the network; it works from file://)
showing

  - the session's units oldest to newest as a strip, each as long as it
    costs (characters; tokens with --tokens or --max-tokens), coloured by
    role and, for tool results, by the name of the call they answer;
  - the cutoff of the budget across it, the trimmed part faded, and the
    first kept line ("keeps from line 12");
  - the lines the runtime refuses, marked, and when the file does not load,
    a banner saying so (the map then shows what its valid lines would cost);
  - tables of the cost by role and by tool name (count, chars, tokens,
    share) and the largest units with their lines.

Pointing at a unit shows its lines, messages, cost and cost from newest;
every unit links to its first line (its data-line attribute; the href is
the file's file:// URL with #L<line>, and an editor hosting the page
reveals the line instead).

A session of many units stays a small page (under 5 MB): adjacent small
units are drawn together in bins, and every unit above a threshold (the
total over 2,000) keeps its own. The file is streamed through the engine,
as check does.

The budget is --budget or --max-tokens, else the budget (or max-tokens)
of FILE's configuration (the closest sessionls.toml); without one the map
has no cutoff. The page goes to OUT (a temporary file renamed over it),
or to stdout when stdout is not a terminal; on a terminal, without -o, map
refuses (an HTML page is not for reading there). OUT cannot be FILE.

Exit codes: 0 the page is written; 1 it is written, but the file does not
load or trimContext throws for the budget (the page says so, and so does
stderr); 2 usage, I/O or configuration error.`,
		Example: `  sessionls map -o map.html session.jsonl
  sessionls map --budget 20000 -o map.html session.jsonl
  sessionls map --max-tokens 8000 session.jsonl > map.html
  sessionls map --tokens -o map.html session.jsonl && xdg-open map.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file := args[0]
			if out == "" && e.stdoutTTY {
				return usagef("map writes an HTML page: give -o OUT.html, or redirect stdout (sessionls map %s > map.html)", file)
			}
			if out != "" && out != "-" && file != "-" && sameFile(file, out) {
				return usagef("-o %s is the session itself: the page would replace it", out)
			}
			opts, budget, err := flags.resolve(e, &cf, cmd, file)
			if err != nil {
				return err
			}
			return runMap(cmd, e, file, out, budget, opts)
		},
	}
	flags.register(cmd, true)
	cf.add(cmd.Flags())
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the page to `OUT` atomically instead of stdout")
	return cmd
}

// writePage writes path through a temporary file in its directory,
// renamed over it: a reader never sees half a page, and a failed run
// leaves the old one. Unlike a session, the page is not fsynced (it can
// be made again at will; an fsync is most of a small map's wall time).
func writePage(path string, write func(io.Writer) error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// CreateTemp makes the file 0600; a page is for reading.
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func runMap(cmd *cobra.Command, e *env, file, out string, budget int64, opts analysis.Options) error {
	// The engine's memory is bounded by the longest line, as in check: the
	// same soft heap goal keeps a gigabyte's map near check's RSS.
	if e.getenv("GOMEMLIMIT") == "" {
		prev := debug.SetMemoryLimit(checkMemoryLimit)
		defer debug.SetMemoryLimit(prev)
	}
	b := ctxmap.NewBuilder()
	opts.Observer = b
	rep, err := analyzeFile(cmd.Context(), e, file, opts)
	if err != nil {
		return ioFailed(e, file, err)
	}
	m, err := b.Build(rep, ctxmap.Config{Budget: budget, ByTokens: opts.Tokens != nil})
	if err != nil {
		return err
	}
	tokenizer := ""
	if c, ok := opts.Tokens.(*tokens.Counter); ok {
		tokenizer = string(c.Encoding())
	}
	page := newMapPage(m, file, tokenizer, e.version)
	write := func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		if err := mapTemplate.Execute(bw, page); err != nil {
			return err
		}
		return bw.Flush()
	}
	if out == "" || out == "-" {
		if err := write(e.stdout); err != nil {
			return writeFailed(e, err)
		}
	} else if err := writePage(out, write); err != nil {
		fmt.Fprintf(e.stderr, "sessionls: cannot write %s: %s\n", sanitize(out), sanitize(err.Error()))
		return exitError{ExitError}
	}
	o := outcome(rep, budget, opts)
	if o.err != nil {
		fmt.Fprintf(e.stderr, "sessionls: %s: %s\n", sanitize(file), sanitize(o.errorText()))
		return exitError{ExitFindings}
	}
	return nil
}

// mapPage is what the template draws: the map, laid out.
type mapPage struct {
	M          *ctxmap.Map
	Name       string
	Version    string
	Tokenizer  string
	CSS        template.CSS
	JS         template.JS
	Totals     string
	Aggregated bool
	BudgetHTML template.HTML
	Legend     []legendItem
	Rows       []stripRow
	RoleRows   []tableRow
	ToolRows   []tableRow
	Largest    []largeRow
	// RefusedRows are the refused lines listed; MoreRefused how many more
	// there are.
	RefusedRows []refusedRow
	MoreRefused int
}

// Thousands is textfmt.Thousands for the template.
func (mapPage) Thousands(n any) string {
	switch v := n.(type) {
	case int:
		return textfmt.Thousands(v)
	case int64:
		return textfmt.Thousands(v)
	}
	return fmt.Sprint(n)
}

type legendItem struct {
	Label string
	Color template.CSS
}

type stripRow struct {
	Pieces  []piece
	Refused []mark
	Cut     *cutMark
}

// piece is the part of a bin that falls in one row (a bin that crosses a
// row's end is drawn in two pieces; the first carries the bin's data).
type piece struct {
	Bin                 int
	First               bool
	Trimmed, Kept       bool
	Line, EndLine       int
	Units, Messages     int
	Chars, Tokens, Size int64
	Href                template.URL
	Style               template.CSS
	Title               string
}

type mark struct {
	Line  int
	Href  template.URL
	Style template.CSS
	Title string
}

type cutMark struct {
	Line  int
	At    int64
	Class string
	Style template.CSS
}

type tableRow struct {
	Label                                          string
	Color, Bar                                     template.CSS
	Messages                                       int
	Chars, Tokens                                  int64
	MessagesText, CharsText, TokensText, ShareText string
}

type largeRow struct {
	Rank                                           int
	Line                                           int
	Lines                                          string
	Size                                           int64
	Href                                           template.URL
	MessagesText, CharsText, TokensText, ShareText string
	FromNewestText, State, Made                    string
	Style                                          template.CSS
}

type refusedRow struct {
	Line          int
	Code, Message string
	Href          template.URL
}

// kindColors are the kinds' colours: user, assistant, results with no
// call, then the tool names in turn (a palette that stays apart from the
// first three), and the "other tools" kind.
var (
	roleColors = []string{"#4e79a7", "#59a14f", "#8c8c8c"}
	toolColors = []string{"#f28e2b", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#d37295", "#a0cbe8", "#ffbe7d", "#8cd17d", "#f1ce63"}
)

const otherToolsColor = "#555555"

func kindColor(m *ctxmap.Map, k int) string {
	if k < 0 {
		return "#b9a3d9" // the tool role as a whole: apart from every tool name's
	}
	if k < len(roleColors) {
		return roleColors[k]
	}
	if m.Kinds[k].Note != "" {
		return otherToolsColor
	}
	return toolColors[(k-len(roleColors))%len(toolColors)]
}

// gradient is a background that shows parts side by side, each as wide as
// its share of the whole (at most six; the rest join the last).
func gradient(m *ctxmap.Map, parts []ctxmap.Part, measure func(ctxmap.Part) int64) string {
	var total int64
	for _, p := range parts {
		total += measure(p)
	}
	if len(parts) == 0 || total <= 0 {
		return "background:var(--row)"
	}
	if len(parts) == 1 {
		return "background:" + kindColor(m, parts[0].Kind)
	}
	var b strings.Builder
	b.WriteString("background:linear-gradient(90deg")
	var acc int64
	for i, p := range parts {
		from := pct(acc, total)
		acc += measure(p)
		to := pct(acc, total)
		if i == 5 || i == len(parts)-1 {
			to = "100%"
		}
		fmt.Fprintf(&b, ",%s %s %s", kindColor(m, p.Kind), from, to)
		if i == 5 {
			break
		}
	}
	b.WriteString(")")
	return b.String()
}

func pct(n, total int64) string {
	if total <= 0 {
		return "0%"
	}
	return strconv.FormatFloat(float64(n)*100/float64(total), 'f', 3, 64) + "%"
}

// share is n of total as a person reads it: "12.3%", "<0.1%".
func share(n, total int64) string {
	if total <= 0 || n <= 0 {
		return "0%"
	}
	f := float64(n) * 100 / float64(total)
	if f < 0.1 {
		return "<0.1%"
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + "%"
}

// madeOf says what a unit or bin is made of: "read_file 80% · assistant 20%".
func madeOf(m *ctxmap.Map, parts []ctxmap.Part, measure func(ctxmap.Part) int64) string {
	var total int64
	for _, p := range parts {
		total += measure(p)
	}
	var s []string
	for i, p := range parts {
		if i == 4 {
			s = append(s, fmt.Sprintf("%d more", len(parts)-4))
			break
		}
		s = append(s, fmt.Sprintf("%s %s", m.Kinds[p.Kind].Label(), share(measure(p), total)))
	}
	return strings.Join(s, " · ")
}

// lineHref is the link of a line: the file's file:// URL with #L<line>
// (none for stdin).
func lineHref(fileURL string, ln int) template.URL {
	if fileURL == "" {
		return template.URL("#L" + strconv.Itoa(ln))
	}
	return template.URL(fileURL + "#L" + strconv.Itoa(ln))
}

func newMapPage(m *ctxmap.Map, file, tokenizer, version string) *mapPage {
	p := &mapPage{M: m, Name: sanitize(file), Version: version, Tokenizer: tokenizer,
		CSS: template.CSS(mapPageCSS), JS: template.JS(mapPageJS), Aggregated: m.Threshold > 0}
	fileURL := ""
	if file != "-" {
		if abs, err := filepath.Abs(file); err == nil {
			fileURL = (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
		}
	}
	byTokens := m.Measure == "tokens"
	measure := func(pt ctxmap.Part) int64 {
		if byTokens {
			return pt.Tokens
		}
		return pt.Chars
	}
	counted := m.TokensCounted
	cost := func(chars, toks int64) string {
		s := textfmt.Thousands(chars) + " chars"
		if counted {
			s += ", " + textfmt.Thousands(toks) + " tokens"
		}
		return s
	}
	p.Totals = fmt.Sprintf("%s in %s, %s", textfmt.Plural(m.Messages, "message", "messages"),
		textfmt.Plural(m.Units, "unit", "units"), cost(m.TotalChars, m.TotalTokens))
	if tokenizer != "" {
		p.Totals += " (" + tokenizer + ")"
	}
	if m.RefusedLines > 0 {
		p.Totals += fmt.Sprintf(" · %s the runtime refuses", textfmt.Plural(m.RefusedLines, "line", "lines"))
	}

	// The budget line.
	esc := html.EscapeString
	switch bu := m.Budget; {
	case bu == nil:
		p.BudgetHTML = "No budget: give --budget N or --max-tokens N (or a budget in sessionls.toml) to see where it cuts."
	case bu.Error != "":
		p.BudgetHTML = template.HTML(fmt.Sprintf("<strong>Budget %s %s:</strong> %s", textfmt.Thousands(bu.Limit), bu.Unit, esc(bu.Error)))
	default:
		p.BudgetHTML = template.HTML(fmt.Sprintf("Budget %s %s keeps %s of %s units (%s, %s): <span class=\"keeps\">keeps from line %d</span>; %s before it %s trimmed.",
			textfmt.Thousands(bu.Limit), bu.Unit, textfmt.Thousands(bu.KeptUnits), textfmt.Thousands(m.Units),
			textfmt.Plural(bu.KeptMessages, "message", "messages"), cost(bu.KeptChars, bu.KeptTokens), bu.FirstKeptLine,
			textfmt.Plural(bu.FirstUnit, "unit", "units"), map[bool]string{true: "is", false: "are"}[bu.FirstUnit == 1]))
	}

	// The legend: the kinds that have messages.
	used := make([]bool, len(m.Kinds))
	for _, b := range m.Bins {
		for _, pt := range b.Parts {
			used[pt.Kind] = true
		}
	}
	for k, kd := range m.Kinds {
		if used[k] {
			p.Legend = append(p.Legend, legendItem{Label: kd.Label(), Color: template.CSS("background:" + kindColor(m, k))})
		}
	}

	// The strip: rows of equal size, about 25 bins to a row, at most 40.
	if m.Total > 0 && len(m.Bins) > 0 {
		nrows := min(40, max(1, (len(m.Bins)+24)/25))
		rowSize := (m.Total + int64(nrows) - 1) / int64(nrows)
		p.Rows = make([]stripRow, nrows)
		where := func(at int64) (int, string) {
			r := min(int(at/rowSize), nrows-1)
			return r, pct(at-int64(r)*rowSize, rowSize)
		}
		for i, b := range m.Bins {
			units := "unit " + textfmt.Thousands(b.FirstUnit+1)
			if b.Units > 1 {
				units = fmt.Sprintf("units %s–%s (%s units drawn together)", textfmt.Thousands(b.FirstUnit+1), textfmt.Thousands(b.FirstUnit+b.Units), textfmt.Thousands(b.Units))
			}
			state := ""
			if m.Budget != nil && m.Budget.Error == "" {
				state = " · trimmed"
				if b.Kept {
					state = " · kept"
				}
			}
			title := fmt.Sprintf("%s · %s · %s\n%s (%s) · from newest %s%s\n%s",
				units, textfmt.LineRange(b.StartLine, b.EndLine), textfmt.Plural(b.Messages, "message", "messages"),
				cost(b.Chars, b.Tokens), share(b.Size, m.Total), cost(b.FromNewestChars, b.FromNewestTokens), state,
				madeOf(m, b.Parts, measure))
			bg := gradient(m, b.Parts, measure)
			pc := piece{Bin: i, First: true, Trimmed: m.Budget != nil && m.Budget.Error == "" && !b.Kept, Kept: b.Kept,
				Line: b.StartLine, EndLine: b.EndLine, Units: b.Units, Messages: b.Messages,
				Chars: b.Chars, Tokens: b.Tokens, Size: b.Size, Href: lineHref(fileURL, b.StartLine), Title: title}
			start, end := b.At, b.At+b.Size
			for start < end || pc.First {
				r, left := where(start)
				stop := min(end, int64(r+1)*rowSize)
				if r == nrows-1 {
					stop = end
				}
				pc.Style = template.CSS(fmt.Sprintf("left:%s;width:%s;%s", left, pct(stop-start, rowSize), bg))
				p.Rows[r].Pieces = append(p.Rows[r].Pieces, pc)
				pc.First = false
				if stop <= start {
					break
				}
				start = stop
			}
		}
		for _, rf := range m.Refused {
			r, left := where(rf.At)
			p.Rows[r].Refused = append(p.Rows[r].Refused, mark{Line: rf.Line, Href: lineHref(fileURL, rf.Line),
				Style: template.CSS("left:" + left), Title: fmt.Sprintf("line %d is refused: %s", rf.Line, rf.Message)})
		}
		if bu := m.Budget; bu != nil && bu.Error == "" {
			r, left := where(bu.At)
			class := ""
			if float64(bu.At-int64(r)*rowSize) > 0.7*float64(rowSize) {
				class = "right" // the label goes left of the line
			}
			p.Rows[r].Cut = &cutMark{Line: bu.FirstKeptLine, At: bu.At, Class: class, Style: template.CSS("left:" + left)}
		}
	}

	// The tables.
	row := func(r ctxmap.Row) tableRow {
		size := r.Chars
		if byTokens {
			size = r.Tokens
		}
		return tableRow{Label: r.Label, Color: template.CSS("background:" + kindColor(m, r.Kind)),
			Bar:      template.CSS(fmt.Sprintf("width:%dpx;background:%s", int(r.Share*120+0.5), kindColor(m, r.Kind))),
			Messages: r.Messages, Chars: r.Chars, Tokens: r.Tokens,
			MessagesText: textfmt.Thousands(r.Messages), CharsText: textfmt.Thousands(r.Chars),
			TokensText: textfmt.Thousands(r.Tokens), ShareText: share(size, m.Total)}
	}
	for _, r := range m.Roles {
		p.RoleRows = append(p.RoleRows, row(r))
	}
	for _, r := range m.Tools {
		p.ToolRows = append(p.ToolRows, row(r))
	}
	for i, u := range m.Largest {
		state := ""
		if m.Budget != nil && m.Budget.Error == "" {
			state = "trimmed"
			if u.Kept {
				state = "kept"
			}
		}
		p.Largest = append(p.Largest, largeRow{Rank: i + 1, Line: u.StartLine, Lines: textfmt.LineRange(u.StartLine, u.EndLine),
			Size: u.Size, Href: lineHref(fileURL, u.StartLine),
			MessagesText: textfmt.Thousands(u.Messages), CharsText: textfmt.Thousands(u.Chars), TokensText: textfmt.Thousands(u.Tokens),
			ShareText: share(u.Size, m.Total), FromNewestText: textfmt.Thousands(map[bool]int64{false: u.FromNewestChars, true: u.FromNewestTokens}[byTokens]),
			State: state, Made: madeOf(m, u.Parts, measure), Style: template.CSS(gradient(m, u.Parts, measure))})
	}
	for _, r := range m.Refused {
		p.RefusedRows = append(p.RefusedRows, refusedRow{Line: r.Line, Code: r.Code, Message: sanitize(r.Message), Href: lineHref(fileURL, r.Line)})
	}
	p.MoreRefused = m.RefusedLines - len(m.Refused)
	return p
}
