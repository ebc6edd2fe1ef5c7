// Package mappage renders a context map (analysis/ctxmap.Map) as one
// self-contained HTML page: its CSS and script inline, nothing loaded from
// the network, a Content-Security-Policy that lets only its own script
// run (by hash). The CLI's `sessionls map` writes it and the language
// server's sessionls/contextMap request returns it, so a browser and an
// editor's webview show the same page.
package mappage

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html"
	"html/template"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sessionls/sessionls/analysis/ctxmap"
	"github.com/sessionls/sessionls/internal/textfmt"
)

var (
	//go:embed page.html
	pageHTML string
	//go:embed page.css
	pageCSS string
	//go:embed page.js
	pageJS string
)

var tmpl = template.Must(template.New("map").Parse(pageHTML))

// csp is the page's Content-Security-Policy: nothing from anywhere, its
// one inline script allowed by its SHA-256 (not 'unsafe-inline', so a
// script that found its way into the markup would not run, in a browser
// or in an editor's webview), inline styles (the strip is drawn with style
// attributes), and data: images.
var csp = "default-src 'none'; style-src 'unsafe-inline'; script-src " + ScriptHash() + "; img-src data:"

// ScriptHash is the CSP source of the page's script: 'sha256-<base64>'.
func ScriptHash() string {
	sum := sha256.Sum256([]byte(pageJS))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// CSP is the page's Content-Security-Policy, as its meta tag gives it.
func CSP() string { return csp }

// Options say what the page names and links to.
type Options struct {
	// Name is the file's name as the title shows it ("-" for stdin).
	Name string
	// FileURL is the file's file:// URL: each unit links to it with
	// #L<line>. Any other scheme (or "") links to #L<line> alone.
	FileURL string
	// Tokenizer is the encoding tokens were counted with ("" for none).
	Tokenizer string
	// Version is the sessionls version in the footer and generator tag.
	Version string
}

// FileURL is the file:// URL of a path ("" for stdin, "-", or a path
// that cannot be made absolute).
func FileURL(path string) string {
	if path == "-" || path == "" {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// Write renders m's page to w.
func Write(w io.Writer, m *ctxmap.Map, o Options) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := tmpl.Execute(bw, newMapPage(m, o)); err != nil {
		return err
	}
	return bw.Flush()
}

// mapPage is what the template draws: the map, laid out.
type mapPage struct {
	M          *ctxmap.Map
	Name       string
	Version    string
	Tokenizer  string
	CSS        template.CSS
	CSP        string
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

// rowTable is what the "tableRows" template draws: the rows of the table
// by role or by tool name, and whether the page has a tokens column.
type rowTable struct {
	Rows          []tableRow
	TokensCounted bool
}

// Table is rows with what the "tableRows" template needs of the page.
func (p mapPage) Table(rows []tableRow) rowTable {
	return rowTable{rows, p.M.TokensCounted}
}

type legendItem struct {
	Label string
	Color template.CSS
}

type stripRow struct {
	Pieces      []piece
	Refused     []mark
	Compactions []mark
	Cut         *cutMark
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

// Share is n of total as a person reads it: "12.3%", "<0.1%".
func Share(n, total int64) string {
	if total <= 0 || n <= 0 {
		return "0%"
	}
	f := float64(n) * 100 / float64(total)
	if f < 0.1 {
		return "<0.1%"
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + "%"
}

// MadeOf says what a unit or bin is made of: "read_file 80% · assistant 20%".
func MadeOf(m *ctxmap.Map, parts []ctxmap.Part, measure func(ctxmap.Part) int64) string {
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
		s = append(s, fmt.Sprintf("%s %s", m.Kinds[p.Kind].Label(), Share(measure(p), total)))
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

func newMapPage(m *ctxmap.Map, o Options) *mapPage {
	p := &mapPage{M: m, Name: textfmt.Sanitize(o.Name), Version: o.Version, Tokenizer: o.Tokenizer,
		CSS: template.CSS(pageCSS), JS: template.JS(pageJS), CSP: csp, Aggregated: m.Threshold > 0}
	fileURL := ""
	if u, err := url.Parse(o.FileURL); err == nil && u.Scheme == "file" {
		fileURL = u.String()
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
	if o.Tokenizer != "" {
		p.Totals += " (" + o.Tokenizer + ")"
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
				cost(b.Chars, b.Tokens), Share(b.Size, m.Total), cost(b.FromNewestChars, b.FromNewestTokens), state,
				MadeOf(m, b.Parts, measure))
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
		for _, c := range m.Compactions {
			r, left := where(c.At)
			p.Rows[r].Compactions = append(p.Rows[r].Compactions, mark{Line: c.Line, Href: lineHref(fileURL, c.Line),
				Style: template.CSS("left:" + left), Title: compactionMark(c)})
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
			TokensText: textfmt.Thousands(r.Tokens), ShareText: Share(size, m.Total)}
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
			ShareText: Share(u.Size, m.Total), FromNewestText: textfmt.Thousands(map[bool]int64{false: u.FromNewestChars, true: u.FromNewestTokens}[byTokens]),
			State: state, Made: MadeOf(m, u.Parts, measure), Style: template.CSS(gradient(m, u.Parts, measure))})
	}
	for _, r := range m.Refused {
		p.RefusedRows = append(p.RefusedRows, refusedRow{Line: r.Line, Code: r.Code, Message: textfmt.Sanitize(r.Message), Href: lineHref(fileURL, r.Line)})
	}
	p.MoreRefused = m.RefusedLines - len(m.Refused)
	return p
}

// compactionMark is a compaction mark's title: "line 23: compaction: 13
// messages replaced by a 340-char summary", for the last one of a file
// that loads followed by what a resume sends, as the editors' lens says
// it ("· a resume sends lines 23–40: 11 messages, 2,118 chars").
func compactionMark(c ctxmap.Compaction) string {
	t := fmt.Sprintf("line %d: compaction: %s", c.Line, c.Summary)
	if c.Resume != "" {
		t += " · " + c.Resume
	}
	return t
}
