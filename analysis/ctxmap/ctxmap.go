// Package ctxmap is the context map's model: where a session's context
// goes (its units in file order, sized by cost and told apart by role and
// by tool name), where a budget cuts it, which lines the runtime refuses,
// and which units are the largest.
//
// It is pure engine: it folds the messages of one analysis as the engine
// shows them (analysis.Options.Observer), a few bytes per message, then
// the finished Report, into a Map. A Map is small whatever the session's
// size (adjacent small units are aggregated into bins, every unit above a
// threshold keeps a bin of its own) and is JSON-serialisable: its JSON is
// the wire format a front end renders (the CLI's HTML page) or serves (a
// language server's request), documented on each type below.
//
//	b := ctxmap.NewBuilder()
//	opts.Observer = b
//	rep, err := analysis.AnalyzeReader(ctx, f, opts)
//	m, err := b.Build(rep, ctxmap.Config{Budget: opts.Budget})
//
// A report that holds its messages (a language server's Document) maps
// with FromReport, with no second read of the file.
package ctxmap

import (
	"cmp"
	"container/heap"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/blocklist"
)

// Version is the wire format's version (Map.Version); it changes when a
// field changes meaning or goes away, not when one is added.
const Version = 1

// Defaults and bounds of a map. They bound its size: a map has at most
// 3×TargetBins+2 bins, MaxRefused refused lines, MaxToolKinds tool names
// and Largest units, whatever the session.
const (
	DefaultTargetBins = 2000
	DefaultLargest    = 20
	MaxRefused        = 1000
	MaxToolKinds      = 64
	// maxName is the longest tool name kept, in bytes: longer names are
	// cut (and names that share their first maxName bytes share a row).
	maxName = 200
	// maxMessage is the longest refused-line message kept, in bytes.
	maxMessage = 300
)

// Map is a session's context map. Sizes are in Measure: "chars" (the
// runtime's cost, JSON.stringify length + 1 per message) or "tokens"
// (with Config.ByTokens); Chars and Tokens are always both given, Tokens 0
// when none were counted.
type Map struct {
	Version int `json:"version"`
	// Measure is "chars" or "tokens": what Bin.Size, Bin.At, shares,
	// Threshold and the ranking of Largest are in.
	Measure       string `json:"measure"`
	TokensCounted bool   `json:"tokensCounted"`
	// TokensError is set when a message's tokens could not be counted:
	// token sums are then incomplete and the map is in chars.
	TokensError string `json:"tokensError,omitempty"`
	Lines       int    `json:"lines"`    // physical lines of the file
	Messages    int    `json:"messages"` // valid messages
	Units       int    `json:"units"`    // units (what trimContext keeps or drops together)
	TotalChars  int64  `json:"totalChars"`
	TotalTokens int64  `json:"totalTokens"`
	// Total is TotalChars or TotalTokens, per Measure: the bins' sizes and
	// the rows' sizes each add up to it.
	Total int64 `json:"total"`
	// LoadFailure is why the runtime refuses the file; null when it loads.
	// The units and bins are then those of the valid lines: what the file
	// would cost once it loads.
	LoadFailure *LoadFailure `json:"loadFailure"`
	// Refused lists the first MaxRefused lines the runtime refuses, in
	// line order; RefusedLines counts them all.
	Refused      []Refused `json:"refused"`
	RefusedLines int       `json:"refusedLines"`
	// Compactions are the first MaxRefused points where the history was
	// compacted (Claude Code and Codex CLI files record them:
	// analysis.Report.Compactions), in line order: from there on the model
	// is sent a summary instead of what comes before. Absent for the
	// runtime's own files.
	Compactions []Compaction `json:"compactions,omitempty"`
	// Budget is where the budget cuts; null when no budget was given.
	Budget *Budget `json:"budget"`
	// Threshold: a unit of at least this size always has a bin of its own
	// (when the session has more units than TargetBins; else every unit
	// has its own bin and Threshold is 0).
	Threshold  int64 `json:"threshold"`
	TargetBins int   `json:"targetBins"`
	// Kinds are the colours of the map: Part.Kind and Row.Kind index it.
	// 0 is user, 1 assistant, 2 tool results no call declares; then one per
	// tool name (a tool result is its answered call's name), in order of
	// first appearance, and at most one for the tool names past
	// MaxToolKinds.
	Kinds []Kind `json:"kinds"`
	// Bins are the units oldest first, adjacent small ones aggregated. A
	// bin never straddles the cutoff: it is wholly kept or wholly trimmed.
	Bins []Bin `json:"bins"`
	// Roles has one row per role (user, assistant, tool), always all three;
	// Tools one per tool kind with messages, largest first. Each table's
	// sizes add up to Total (Tools: to the tool role's row).
	Roles []Row `json:"roles"`
	Tools []Row `json:"tools"`
	// Largest are the largest units, largest first (ties: oldest first).
	Largest []UnitInfo `json:"largest"`
}

// Kind is a colour of the map: a role, or for tool results a tool name.
type Kind struct {
	Role string `json:"role"`           // user, assistant or tool
	Tool string `json:"tool,omitempty"` // the tool name of the call a result answers
	// Note is set for the kinds without a name: "no call" (results no
	// earlier assistant declares: orphans) and "other tools" (names past
	// MaxToolKinds).
	Note string `json:"note,omitempty"`
}

// Label is how a kind is named to a person.
func (k Kind) Label() string {
	switch {
	case k.Note != "":
		return k.Role + " (" + k.Note + ")"
	case k.Role == "tool":
		return k.Tool
	}
	return k.Role
}

// LoadFailure is analysis.LoadFailure on the wire.
type LoadFailure struct {
	Line    int    `json:"line"`    // the first invalid line; 0 when the file is too long
	Message string `json:"message"` // what the runtime throws
	Summary string `json:"summary"` // "the file does not load (line 8 is invalid)"
}

// Compaction is a compaction point of the map.
type Compaction struct {
	Line int `json:"line"`
	// Summary says what it replaced: "13 messages replaced by a 340-char
	// summary" (analysis.Compaction.Summary).
	Summary string `json:"summary"`
	// At is where it falls in the map: the size of the units that end
	// before it.
	At int64 `json:"at"`
	// Resume, on the last compaction of a file that loads, says what a
	// resume sends, the history from it on, in the words of `budget`
	// (analysis.Resume.Summary): "a resume sends lines 23–40: 11
	// messages, 2,118 chars" (", 626 tokens" when tokens are counted).
	Resume string `json:"resume,omitempty"`
}

// Refused is a line the runtime refuses.
type Refused struct {
	Line    int    `json:"line"`
	Code    string `json:"code"` // invalid-json, invalid-record, or the cause of damage (analysis.IsRefusal)
	Message string `json:"message"`
	// At is where the line falls in the map: the size of the units that
	// end before it.
	At int64 `json:"at"`
}

// Budget is the cutoff of a budget, or why there is none.
type Budget struct {
	Limit int64  `json:"limit"`
	Unit  string `json:"unit"` // chars or tokens
	// Error is the runtime's error (trimContext throws, or the file does not
	// load) or why tokens cannot be budgeted; the fields below are then 0.
	Error         string `json:"error,omitempty"`
	FirstUnit     int    `json:"firstUnit"` // index of the first kept unit
	FirstKeptLine int    `json:"firstKeptLine"`
	KeptUnits     int    `json:"keptUnits"`
	KeptMessages  int    `json:"keptMessages"`
	KeptChars     int64  `json:"keptChars"`
	KeptTokens    int64  `json:"keptTokens"`
	// At is where the cut falls in the map: the size of the trimmed units.
	At int64 `json:"at"`
}

// Bin is one unit or a run of adjacent units.
type Bin struct {
	FirstUnit int `json:"firstUnit"` // index of its first unit
	Units     int `json:"units"`
	Extent
	At   int64 `json:"at"`   // the size of the bins before it
	Kept bool  `json:"kept"` // inside the budget's cutoff
	// Parts are its messages by kind, largest first.
	Parts []Part `json:"parts"`
}

// Extent is what a bin and a unit both measure: the lines they span,
// their messages and cost. Embedded, its fields stand in the JSON where
// it stands in the struct.
type Extent struct {
	StartLine int   `json:"startLine"`
	EndLine   int   `json:"endLine"`
	Messages  int   `json:"messages"`
	Chars     int64 `json:"chars"`
	Tokens    int64 `json:"tokens"`
	// FromNewestChars and FromNewestTokens are the cost of the extent and
	// everything newer: the least budget that keeps all of it.
	FromNewestChars  int64 `json:"fromNewestChars"`
	FromNewestTokens int64 `json:"fromNewestTokens"`
	Size             int64 `json:"size"` // Chars or Tokens, per Measure
}

// Part is the messages of one kind within a bin or unit.
type Part struct {
	Kind     int   `json:"kind"`
	Messages int   `json:"messages"`
	Chars    int64 `json:"chars"`
	Tokens   int64 `json:"tokens"`
}

// Row is one row of a breakdown table.
type Row struct {
	// Kind indexes Map.Kinds; -1 for the tool role's row, which spans
	// every tool kind.
	Kind     int     `json:"kind"`
	Label    string  `json:"label"`
	Messages int     `json:"messages"`
	Chars    int64   `json:"chars"`
	Tokens   int64   `json:"tokens"`
	Share    float64 `json:"share"` // of Total, 0 to 1
}

// UnitInfo is one unit, for the largest units.
type UnitInfo struct {
	Index int `json:"index"`
	Extent
	Kept  bool   `json:"kept"`
	Parts []Part `json:"parts"`
}

// Config says how to build a map.
type Config struct {
	// Budget and TokenBudget describe the budget the report was made with
	// (analysis.Options.Budget, or Options.TokenBudget with TokenBudget);
	// 0: none.
	Budget      int64
	TokenBudget bool
	// ByTokens sizes the map in tokens (the report must count them), with
	// a budget in either unit.
	ByTokens bool
	// TargetBins is how many bins to aim at (default DefaultTargetBins).
	TargetBins int
	// Largest is how many largest units to list (default DefaultLargest).
	Largest int
}

const (
	kindUser = iota
	kindAssistant
	kindOrphan
)

// Builder folds the messages of one analysis; it is the analysis's
// Options.Observer. It keeps 16 bytes per message (20 with tokens), and per
// declared call its id's bytes and 16 more, all free of pointers (the
// garbage collector has nothing to scan in them, however long the
// session). Not safe for concurrent use (the engine calls it from one
// goroutine).
type Builder struct {
	kinds  []Kind
	kindOf map[Kind]int32
	other  int32 // the kind of tool names past MaxToolKinds; -1 until made
	recs   recList
	// calls are the calls of the assistant messages, in order, their ids
	// in ids: a tool result is named by the call of its owner (the
	// engine's link) with its id, the last such call, as
	// analysis.Report.AnsweredCall does.
	calls blocklist.List[call]
	ids   []byte
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	b := &Builder{kindOf: map[Kind]int32{}, other: -1}
	for _, k := range []Kind{{Role: "user"}, {Role: "assistant"}, {Role: "tool", Note: "no call"}} {
		b.kindOf[k] = int32(len(b.kinds))
		b.kinds = append(b.kinds, k)
	}
	return b
}

// Observe takes the next message (analysis.MessageObserver).
func (b *Builder) Observe(m *analysis.Message, owner int) {
	k := int32(kindUser)
	var first, n uint32
	switch m.Role {
	case line.RoleAssistant:
		k = kindAssistant
		first, n = uint32(b.calls.Len()), uint32(len(m.Calls))
		for i := range m.Calls {
			c := &m.Calls[i]
			b.calls.Append(call{off: int64(len(b.ids)), n: int32(len(c.ID)), kind: b.toolKind(c.Name)})
			b.ids = append(b.ids, c.ID...)
		}
	case line.RoleTool:
		k = kindOrphan
		if owner >= 0 && owner < b.recs.len() {
			o := b.recs.at0(owner)
			for j := int(o.first) + int(o.calls) - 1; j >= int(o.first); j-- {
				c := b.calls.At(j)
				if string(b.ids[c.off:c.off+int64(c.n)]) == m.ToolCallID {
					k = c.kind
					break
				}
			}
		}
	}
	b.recs.add(rec{kind: k, first: first, calls: n}, m.Cost, m.Tokens)
}

// toolKind is the kind of results answering a call named name.
func (b *Builder) toolKind(name string) int32 {
	if len(name) > maxName {
		name = name[:maxName]
	}
	if !utf8.ValidString(name) {
		// WTF-8 (a lone surrogate) or a cut rune: shown, not kept apart.
		name = strings.ToValidUTF8(name, "\uFFFD")
	}
	k := Kind{Role: "tool", Tool: name}
	if i, ok := b.kindOf[k]; ok {
		return i
	}
	if len(b.kinds)-3 >= MaxToolKinds {
		if b.other < 0 {
			b.other = int32(len(b.kinds))
			b.kinds = append(b.kinds, Kind{Role: "tool", Note: "other tools"})
		}
		return b.other
	}
	i := int32(len(b.kinds))
	b.kindOf[k] = i
	b.kinds = append(b.kinds, k)
	return i
}

// Build makes the map of rep, the report of the analysis b observed.
func (b *Builder) Build(rep *analysis.Report, cfg Config) (*Map, error) {
	nmsgs := 0
	if len(rep.Units) > 0 {
		nmsgs = rep.Units[len(rep.Units)-1].Last + 1
	}
	if nmsgs != b.recs.len() {
		return nil, fmt.Errorf("ctxmap: the report has %d messages but the builder saw %d (was the builder the analysis's Options.Observer?)", nmsgs, b.recs.len())
	}
	if cfg.TargetBins <= 0 {
		cfg.TargetBins = DefaultTargetBins
	}
	if cfg.Largest <= 0 {
		cfg.Largest = DefaultLargest
	}
	m := &Map{
		Version: Version, Measure: "chars",
		TokensCounted: rep.TotalTokens > 0 || rep.TokensErr != nil || b.recs.tokens.Made(),
		Lines:         rep.Lines, Messages: nmsgs, Units: len(rep.Units),
		TotalChars: rep.TotalChars, TotalTokens: rep.TotalTokens,
		Kinds: slices.Clone(b.kinds), TargetBins: cfg.TargetBins,
		Refused: []Refused{}, Bins: []Bin{}, Tools: []Row{}, Largest: []UnitInfo{},
	}
	byTokens := cfg.ByTokens
	if rep.TokensErr != nil {
		m.TokensError = rep.TokensErr.Error()
		byTokens = false
	}
	if byTokens {
		m.Measure = "tokens"
	}
	size := func(chars, tokens int64) int64 {
		if byTokens {
			return tokens
		}
		return chars
	}
	m.Total = size(rep.TotalChars, rep.TotalTokens)
	if lf := rep.LoadFailure(); lf != nil {
		m.LoadFailure = &LoadFailure{Line: lf.Line, Message: lf.Message, Summary: lf.Summary()}
	}
	units := rep.Units
	// before is the size of the units that end before line ln.
	before := func(ln int) int64 {
		k, _ := slices.BinarySearchFunc(units, ln, func(u analysis.Unit, ln int) int {
			if u.EndLine < ln {
				return -1
			}
			return 1
		})
		if k == len(units) {
			return m.Total
		}
		return m.Total - size(units[k].FromNewest, units[k].TokensFromNewest)
	}
	m.RefusedLines = rep.InvalidLines
	for _, f := range rep.Findings {
		if len(m.Refused) == MaxRefused {
			break
		}
		if analysis.IsRefusal(f.Code) { // the runtime's codes and the causes of damage
			m.Refused = append(m.Refused, Refused{Line: f.Line, Code: f.Code, Message: clip(f.Message, maxMessage), At: before(f.Line)})
		}
	}
	for _, c := range rep.Compactions {
		if len(m.Compactions) == MaxRefused {
			break
		}
		m.Compactions = append(m.Compactions, Compaction{Line: c.Line, Summary: c.Summary(), At: before(c.Line)})
	}
	if rs, ok := rep.Resume(); ok && len(m.Compactions) == len(rep.Compactions) {
		// The last compaction is in the map (not past MaxRefused).
		m.Compactions[len(m.Compactions)-1].Resume = rs.Summary(m.TokensCounted && m.TokensError == "")
	}
	cutUnit := -1 // no cutoff
	if cfg.Budget > 0 {
		bu := &Budget{Limit: cfg.Budget, Unit: "chars"}
		if cfg.TokenBudget {
			bu.Unit = "tokens"
		}
		switch {
		case m.LoadFailure != nil:
			bu.Error = m.LoadFailure.Summary + ", so the runtime holds no messages and the budget cuts nothing"
		case rep.CutoffErr != nil:
			bu.Error = rep.CutoffErr.Error()
		case rep.Cutoff != nil:
			c := rep.Cutoff
			bu.FirstUnit, bu.FirstKeptLine, bu.KeptUnits, bu.KeptMessages = c.FirstUnit, c.FirstKeptLine, c.KeptUnits, c.KeptMessages
			bu.KeptChars, bu.KeptTokens = c.KeptChars, c.KeptTokens
			bu.At = m.Total - size(c.KeptChars, c.KeptTokens)
			cutUnit = c.FirstUnit
		case cfg.TokenBudget && rep.TokensErr != nil:
			bu.Error = rep.TokensErr.Error()
		default:
			bu.Error = "no cutoff was computed for this budget (the report was made without it)"
		}
		m.Budget = bu
	}

	aggregate := len(units) > cfg.TargetBins
	if aggregate && m.Total > 0 {
		m.Threshold = (m.Total + int64(cfg.TargetBins) - 1) / int64(cfg.TargetBins)
	}
	nk := len(b.kinds)
	unitAcc, binAcc, allAcc := newAcc(nk), newAcc(nk), newAcc(nk)
	var (
		open  bool
		cur   Bin
		at    int64
		large = largest{max: cfg.Largest}
	)
	closeBin := func() {
		if !open {
			return
		}
		cur.Parts = binAcc.parts(size)
		cur.At = at
		at += cur.Size
		m.Bins = append(m.Bins, cur)
		open = false
	}
	addUnit := func(k int, u *analysis.Unit) {
		if !open {
			cur = Bin{FirstUnit: k, Extent: Extent{StartLine: u.StartLine, FromNewestChars: u.FromNewest, FromNewestTokens: u.TokensFromNewest},
				Kept: cutUnit >= 0 && k >= cutUnit}
			open = true
		}
		cur.Units++
		cur.EndLine = u.EndLine
		cur.Messages += u.Len()
		cur.Chars += u.Chars
		cur.Tokens += u.Tokens
		cur.Size += size(u.Chars, u.Tokens)
		binAcc.merge(unitAcc)
	}
	for k := range units {
		u := &units[k]
		for i := u.First; i <= u.Last; i++ {
			kind, chars, toks := b.recs.at(i)
			unitAcc.add(kind, chars, toks)
			allAcc.add(kind, chars, toks)
		}
		s := size(u.Chars, u.Tokens)
		if large.wants(s) {
			heap.Push(&large, UnitInfo{
				Index: k, Extent: Extent{StartLine: u.StartLine, EndLine: u.EndLine, Messages: u.Len(),
					Chars: u.Chars, Tokens: u.Tokens, FromNewestChars: u.FromNewest, FromNewestTokens: u.TokensFromNewest, Size: s},
				Kept: cutUnit >= 0 && k >= cutUnit, Parts: unitAcc.partsKeep(size),
			})
			if large.Len() > large.max {
				heap.Pop(&large)
			}
		}
		alone := !aggregate || s >= m.Threshold
		if k == cutUnit || alone {
			closeBin()
		}
		addUnit(k, u)
		if alone || cur.Size >= m.Threshold {
			closeBin()
		}
		unitAcc.reset()
	}
	closeBin()

	m.Largest = large.sorted()
	roleRow := func(kind int, label string) Row {
		return Row{Kind: kind, Label: label}
	}
	m.Roles = []Row{roleRow(kindUser, "user"), roleRow(kindAssistant, "assistant"), roleRow(kindOrphan, "tool")}
	m.Roles[2].Kind = -1 // the role, not one kind
	for k := range nk {
		r := allAcc.sum[k]
		row := &m.Roles[0]
		switch {
		case k == kindAssistant:
			row = &m.Roles[1]
		case k >= kindOrphan:
			row = &m.Roles[2]
			if r.Messages > 0 {
				m.Tools = append(m.Tools, Row{Kind: k, Label: b.kinds[k].Label(), Messages: r.Messages, Chars: r.Chars, Tokens: r.Tokens})
			}
		}
		row.Messages += r.Messages
		row.Chars += r.Chars
		row.Tokens += r.Tokens
	}
	share := func(rows []Row) {
		for i := range rows {
			if m.Total > 0 {
				rows[i].Share = float64(size(rows[i].Chars, rows[i].Tokens)) / float64(m.Total)
			}
		}
	}
	slices.SortStableFunc(m.Tools, func(a, c Row) int {
		return cmp.Compare(size(c.Chars, c.Tokens), size(a.Chars, a.Tokens)) // largest first
	})
	share(m.Roles)
	share(m.Tools)
	return m, nil
}

// FromReport builds the map of a report that holds its messages (one made
// without SkipMessages, such as a language server's analysis.Document
// keeps): what a front end that already holds the report serves with one
// call, without reading the file again. cfg as for Build.
func FromReport(rep *analysis.Report, cfg Config) (*Map, error) {
	n := 0
	if len(rep.Units) > 0 {
		n = rep.Units[len(rep.Units)-1].Last + 1
	}
	if len(rep.Messages) != n {
		return nil, fmt.Errorf("ctxmap: the report holds %d of its %d messages (made with SkipMessages?): map it while it is made, with a Builder as its Options.Observer", len(rep.Messages), n)
	}
	b := NewBuilder()
	for i := range rep.Messages {
		owner := -1
		if a, _, ok := rep.AnsweredCall(i); ok {
			owner = a
		}
		b.Observe(&rep.Messages[i], owner)
	}
	return b.Build(rep, cfg)
}

// clip cuts s to at most n bytes, at a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	k := n
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k] + "…"
}

// acc sums messages by kind, remembering which kinds it touched so that
// a reset costs only those.
type acc struct {
	sum     []Part
	touched []int
}

func newAcc(n int) *acc { return &acc{sum: make([]Part, n)} }

func (a *acc) add(kind int, chars, tokens int64) {
	p := &a.sum[kind]
	if p.Messages == 0 {
		a.touched = append(a.touched, kind)
		p.Kind = kind
	}
	p.Messages++
	p.Chars += chars
	p.Tokens += tokens
}

// merge adds o's sums into a.
func (a *acc) merge(o *acc) {
	for _, k := range o.touched {
		q := o.sum[k]
		p := &a.sum[k]
		if p.Messages == 0 {
			a.touched = append(a.touched, k)
			p.Kind = k
		}
		p.Messages += q.Messages
		p.Chars += q.Chars
		p.Tokens += q.Tokens
	}
}

// partsKeep returns the touched kinds' sums, largest first (ties: the
// lower kind first), and keeps them.
func (a *acc) partsKeep(size func(int64, int64) int64) []Part {
	ps := make([]Part, 0, len(a.touched))
	for _, k := range a.touched {
		ps = append(ps, a.sum[k])
	}
	slices.SortFunc(ps, func(p, q Part) int {
		// Largest first, then by kind.
		return cmp.Or(cmp.Compare(size(q.Chars, q.Tokens), size(p.Chars, p.Tokens)), p.Kind-q.Kind)
	})
	return ps
}

// parts is partsKeep, then reset.
func (a *acc) parts(size func(int64, int64) int64) []Part {
	ps := a.partsKeep(size)
	a.reset()
	return ps
}

func (a *acc) reset() {
	for _, k := range a.touched {
		a.sum[k] = Part{}
	}
	a.touched = a.touched[:0]
}

// largest is a min-heap of the largest units seen (by Size; among equals
// the older is larger, so it stays).
type largest struct {
	max   int
	items []UnitInfo
}

func (h *largest) less(a, b UnitInfo) bool {
	if a.Size != b.Size {
		return a.Size < b.Size
	}
	return a.Index > b.Index
}

func (h *largest) Len() int           { return len(h.items) }
func (h *largest) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *largest) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *largest) Push(x any)         { h.items = append(h.items, x.(UnitInfo)) }
func (h *largest) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// wants reports whether a unit of size s would enter the heap (a later
// unit of the same size as the smallest kept does not).
func (h *largest) wants(s int64) bool {
	return len(h.items) < h.max || s > h.items[0].Size
}

// sorted returns the units largest first (ties: oldest first).
func (h *largest) sorted() []UnitInfo {
	out := slices.Clone(h.items)
	slices.SortFunc(out, func(a, b UnitInfo) int {
		if h.less(a, b) {
			return 1
		}
		if h.less(b, a) {
			return -1
		}
		return 0
	})
	if out == nil {
		out = []UnitInfo{}
	}
	return out
}

// recList holds one record per message in blocks (a long stream's
// records are never copied to grow): its kind, cost and calls in 16
// bytes, and its tokens beside them in blocks made only once a message
// has tokens. A cost or token count past 2^32-1 (a single line of
// gigabytes of number literals that JSON.stringify lengthens) is kept
// aside in big.
type recList struct {
	recs   blocklist.List[rec]
	tokens blocklist.Sparse[uint32]
	big    map[int][2]int64
}

// rec is one message: its kind, cost, and for an assistant message where
// its calls start in the Builder's calls and how many there are.
type rec struct {
	cost         uint32
	kind         int32
	first, calls uint32
}

const bigMark = math.MaxUint32

func (l *recList) add(r rec, cost, tokens int64) {
	r.cost = uint32(bigMark)
	if cost >= 0 && cost < bigMark {
		r.cost = uint32(cost)
	}
	t := uint32(bigMark)
	if tokens >= 0 && tokens < bigMark {
		t = uint32(tokens)
	}
	i := l.recs.Len()
	if r.cost == bigMark || t == bigMark {
		if l.big == nil {
			l.big = map[int][2]int64{}
		}
		l.big[i] = [2]int64{cost, tokens}
	}
	l.tokens.Set(i, t)
	l.recs.Append(r)
}

func (l *recList) len() int { return l.recs.Len() }

// at0 is message i's record as stored.
func (l *recList) at0(i int) rec { return *l.recs.At(i) }

// at returns message i's kind, cost and tokens.
func (l *recList) at(i int) (kind int, cost, tokens int64) {
	r, t := *l.recs.At(i), l.tokens.At(i)
	if r.cost == bigMark || t == bigMark {
		if v, ok := l.big[i]; ok {
			return int(r.kind), v[0], v[1]
		}
	}
	return int(r.kind), int64(r.cost), int64(t)
}

// call is one declared call: its id (the Builder's ids[off:off+n]) and the
// kind of the results that answer it.
type call struct {
	off  int64
	n    int32
	kind int32
}
