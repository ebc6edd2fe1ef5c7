package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// decl is the latest declaration of one call id, as the linker tracks it.
// It is kept small (32 bytes): a long transcript has one per call.
type decl struct {
	line     int
	span     span32 // the id's string literal
	msg      int32  // index of the assistant message that declares the id
	answered bool   // a tool result with this id has this declaration as its owner
}

// span32 is a line.Span in 16 bytes. Offsets past 2^31-1 within one line
// (a line of more than 2 GB) are clamped.
type span32 struct{ start, end, startCol, endCol int32 }

func clamp32(n int) int32 {
	if n > 1<<31-1 {
		return 1<<31 - 1
	}
	if n < 0 {
		return 0
	}
	return int32(n)
}

func toSpan32(s line.Span) span32 {
	return span32{clamp32(s.Start), clamp32(s.End), clamp32(s.StartCol), clamp32(s.EndCol)}
}

func (s span32) span() line.Span {
	return line.Span{Start: int(s.start), End: int(s.end), StartCol: int(s.startCol), EndCol: int(s.endCol)}
}

// linker reads messages oldest first and works out what needs the history
// before each message: the owner of every tool result (the nearest earlier
// assistant declaring its toolCallId, which is what trimContext searches
// for), orphan results, repeated call ids and calls that never get a result.
//
// It holds one map entry per distinct call id and nothing per message, so a
// stream can be checked without keeping its messages. A declaration that is
// shadowed by a later one with the same id can no longer be answered (a
// later result belongs to the nearer declaration), so whether it got a
// result is known at that moment; the rest are known at the end.
type linker struct {
	decls  *declTable
	firsts map[string]Related // first declaration, for ids declared more than once
	n      int32              // messages seen
	// findings receives the checks' findings; nil when only owners are wanted.
	findings *[]Finding
	disabled map[string]bool
	limit    *findingLimit // Options.MaxFindingsPerCode; nil: none
}

func (l *linker) emit(f Finding) {
	if l.findings != nil && !l.disabled[f.Code] && l.limit.keep(f.Code, f.Line) {
		*l.findings = append(*l.findings, f)
	}
}

// add links the next message and returns its node.
func (l *linker) add(m *Message) node {
	if l.decls == nil {
		l.decls = newDeclTable(0)
	}
	idx := l.n
	l.n++
	nd := node{line: m.Line, cost: m.Cost, owner: -1, role: m.Role}
	switch m.Role {
	case line.RoleAssistant:
		for i := range m.Calls {
			c := &m.Calls[i]
			nw := decl{msg: idx, line: m.Line, span: toSpan32(c.IDSpan)}
			e, h, slot := l.decls.find(c.ID)
			if e == nil {
				l.decls.insert(c.ID, h, slot, nw)
				continue
			}
			d := e.d
			l.duplicate(m, c, d)
			if d.msg == idx {
				// Repeated inside one message: a result answers both
				// alike, so keep tracking the first.
				continue
			}
			if !d.answered {
				l.missing(c.ID, d, m.Line)
			}
			e.d = nw
		}
	case line.RoleTool:
		e, _, _ := l.decls.find(m.ToolCallID)
		if e == nil {
			l.emit(Finding{
				Line: m.Line, Span: m.ToolCallIDSpan, Severity: severityOf(CodeOrphanToolResult), Code: CodeOrphanToolResult,
				Message: fmt.Sprintf("no earlier assistant declares toolCallId %s: the runtime keeps this tool result as a unit of its own", strconv.Quote(m.ToolCallID)),
			})
			break
		}
		nd.owner = e.d.msg
		e.d.answered = true
	}
	return nd
}

func (l *linker) duplicate(m *Message, c *line.Call, d decl) {
	if l.findings == nil {
		return
	}
	if l.firsts == nil {
		l.firsts = make(map[string]Related)
	}
	first, ok := l.firsts[c.ID]
	if !ok {
		// No duplicate so far, so the tracked declaration is the first.
		first = Related{Line: d.line, Span: d.span.span(), Message: fmt.Sprintf("call id %s is first declared here", strconv.Quote(c.ID))}
		l.firsts[c.ID] = first
	}
	where := "at line " + strconv.Itoa(first.Line)
	if first.Line == m.Line {
		where = "earlier in this message"
	}
	l.emit(Finding{
		Line: m.Line, Span: c.IDSpan, Severity: severityOf(CodeDuplicateCallID), Code: CodeDuplicateCallID,
		Message: fmt.Sprintf("call id %s is already declared %s; a tool result with this id belongs to the nearest declaration before it", strconv.Quote(c.ID), where),
		Related: []Related{first},
	})
}

// missing reports declaration d of id, which never got a result; shadowLine
// is the line that declares the id again (0 at the end of the file).
func (l *linker) missing(id string, d decl, shadowLine int) {
	msg := fmt.Sprintf("no tool result answers call %s", strconv.Quote(id))
	if shadowLine > 0 {
		msg += fmt.Sprintf(" before it is declared again at line %d (later results with this id belong to that declaration)", shadowLine)
	}
	l.emit(Finding{Line: d.line, Span: d.span.span(), Severity: severityOf(CodeMissingToolResult), Code: CodeMissingToolResult, Message: msg})
}

// finish reports the declarations still unanswered at the end, and lets
// go of the map (the largest thing a long stream holds) before the units
// are built.
func (l *linker) finish() {
	defer func() { l.decls, l.firsts = nil, nil }()
	if l.findings == nil {
		return
	}
	type open struct {
		id string
		d  decl
	}
	var left []open
	if l.decls != nil {
		for k := range l.decls.len() {
			if e := l.decls.at(k); !e.d.answered {
				left = append(left, open{l.decls.key(e), e.d})
			}
		}
	}
	// The table holds ids in first-declaration order; report in file order.
	slices.SortFunc(left, func(a, b open) int {
		if a.d.line != b.d.line {
			return cmp.Compare(a.d.line, b.d.line)
		}
		if a.d.span.start != b.d.span.start {
			return cmp.Compare(a.d.span.start, b.d.span.start)
		}
		return strings.Compare(a.id, b.id)
	})
	for _, o := range left {
		l.missing(o.id, o.d, 0)
	}
}

// sweptFindings reports, for every unit of more than one message, each
// message in it that is not a tool result answering the unit's assistant.
func sweptFindings(units []Unit, nodes *nodeList, out *[]Finding, limit *findingLimit) {
	for _, u := range units {
		if u.Len() < 2 {
			continue
		}
		for j := u.First + 1; j <= u.Last; j++ {
			nd := nodes.at(j)
			if nd.role == line.RoleTool && int(nd.owner) == u.First {
				continue
			}
			if !limit.keep(CodeSweptMessage, nd.line) {
				continue
			}
			what := "this " + nd.role.String() + " message"
			if nd.role == line.RoleTool {
				if nd.owner < 0 {
					what = "this tool result (no earlier assistant declares its id)"
				} else {
					what = fmt.Sprintf("this tool result (it answers the assistant at line %d)", nodes.at(int(nd.owner)).line)
				}
			}
			*out = append(*out, Finding{
				Line: nd.line, Severity: severityOf(CodeSweptMessage), Code: CodeSweptMessage,
				Message: fmt.Sprintf("%s is swept into the unit of the assistant at line %d and is kept or dropped with it", what, u.StartLine),
			})
		}
	}
}

// invalidLine is what the report keeps of an invalid line.
type invalidLine struct {
	line, runtimeLine int
	verdict           line.Verdict
	reason            string
	span              line.Span
	// omitted: past Options.MaxFindingsPerCode, kept only for the first
	// line's Related; it makes no finding.
	omitted bool
	damage  damage // what the line's bytes say about its cause
	// cause is the code naming the cause (causer.decide sets it; "" when
	// none is recognised), ref the earlier line its message names (see
	// why); decided says it was looked for.
	cause   string
	ref     int
	decided bool
}

func (v *invalidLine) code() string {
	if v.cause != "" {
		return v.cause
	}
	if v.verdict == line.InvalidJSON {
		return CodeInvalidJSON
	}
	return CodeInvalidRecord
}

// message is the line's finding message; first says it is where the
// runtime stops, and then the message is also what loadSession throws.
// jsonOnly words it for a format the runtime does not read
// (Options.JSONOnly): what JSON.parse says, and nothing about a loader,
// which the dialect words.
func (v *invalidLine) message(first, jsonOnly bool) string {
	kind := "JSON"
	if v.verdict != line.InvalidJSON {
		kind = "record"
	}
	where := strconv.Itoa(v.line)
	if jsonOnly {
		if v.cause != "" {
			return fmt.Sprintf("%s at line %s: %s (JSON.parse refuses it: %s)", causeTitles[v.cause], where, v.why(), v.reason)
		}
		return fmt.Sprintf("invalid JSON at line %s: %s", where, v.reason)
	}
	if v.runtimeLine != v.line {
		where += fmt.Sprintf(" (the runtime's line %d)", v.runtimeLine)
	}
	msg := fmt.Sprintf("invalid session %s at line %s: %s", kind, where, v.reason)
	if v.cause != "" {
		msg = fmt.Sprintf("%s at line %s: %s (the runtime refuses it: %s)", causeTitles[v.cause], where, v.why(), v.reason)
	}
	if first {
		msg += "; the runtime refuses to load the file here"
	}
	return msg
}

// causeTitles start the message of a refused line whose cause is known.
var causeTitles = map[string]string{
	CodeTruncatedRecord:   "record cut short",
	CodeInterleavedRecord: "interleaved appends",
	CodeZeroFilled:        "zero-filled data",
	CodeSplitRecord:       "record split over lines",
}

// loadMessage is what loadSession throws for the invalid lines inv, or ""
// when there are none: the runtime's words, whatever the cause.
func loadMessage(inv []invalidLine, jsonOnly bool) string {
	if len(inv) == 0 {
		return ""
	}
	v := inv[0]
	v.cause = ""
	return v.message(true, jsonOnly)
}

// maxRelated caps the Related list of the first invalid line.
const maxRelated = 100

// invalidFindings reports every invalid line, the first as the place where
// loadSession throws. With jsonOnly (Options.JSONOnly) each finding is
// about its own line: which lines a format's loader stops at or skips is
// the dialect's to say.
func invalidFindings(inv []invalidLine, out *[]Finding, disabled map[string]bool, jsonOnly bool) {
	causes(inv)
	for k := range inv {
		v := &inv[k]
		if disabled[v.code()] || v.omitted {
			continue
		}
		f := Finding{
			Line: v.line, Span: v.span, Severity: severityOf(v.code()), Code: v.code(),
			Message: v.message(k == 0, jsonOnly),
		}
		switch {
		case jsonOnly:
		case k == 0:
			for r := 1; r < len(inv) && r <= maxRelated; r++ {
				f.Related = append(f.Related, Related{Line: inv[r].line, Span: inv[r].span, Message: "line " + strconv.Itoa(inv[r].line) + " is invalid too: " + inv[r].reason})
			}
		default:
			f.Related = []Related{{Line: inv[0].line, Span: inv[0].span, Message: "the runtime stops at the first invalid line, line " + strconv.Itoa(inv[0].line)}}
		}
		*out = append(*out, f)
	}
}

// budgetFinding describes the cutoff (or its error) for budget.
func budgetFinding(units []Unit, nmsgs int, c Cutoff, err error) Finding {
	budget, unit := "budget", "chars"
	size := func(u Unit) int64 { return u.Chars }
	kept := c.KeptChars
	if c.ByTokens {
		budget, unit = "token budget", "tokens"
		size = func(u Unit) int64 { return u.Tokens }
		kept = c.KeptTokens
	}
	if err != nil {
		f := Finding{Line: 1, Severity: severityOf(CodeBudgetExceeded), Code: CodeBudgetExceeded}
		if len(units) == 0 {
			f.Message = fmt.Sprintf("%s (%s %s; the session has no messages)", err, budget, textfmt.Thousands(c.Budget))
			return f
		}
		u := units[len(units)-1]
		f.Line = u.StartLine
		f.Message = fmt.Sprintf("%s (%s %s; the newest unit, %s, needs %s %s)", err, budget, textfmt.Thousands(c.Budget), textfmt.LineRange(u.StartLine, u.EndLine), textfmt.Thousands(size(u)), unit)
		return f
	}
	f := Finding{Line: c.FirstKeptLine, Severity: severityOf(CodeBudgetCutoff), Code: CodeBudgetCutoff}
	last := units[len(units)-1].EndLine
	keptText := fmt.Sprintf("%s, %s %s", textfmt.Plural(c.KeptUnits, "unit", "units"), textfmt.Thousands(kept), unit)
	if dropped := nmsgs - c.KeptMessages; dropped > 0 {
		verb := "are"
		if dropped == 1 {
			verb = "is"
		}
		f.Message = fmt.Sprintf("%s %s keeps %s: %s; %s above %s trimmed", budget, textfmt.Thousands(c.Budget), textfmt.LineRange(c.FirstKeptLine, last), keptText, textfmt.Plural(dropped, "message", "messages"), verb)
	} else {
		f.Message = fmt.Sprintf("%s %s keeps every message (%s): %s", budget, textfmt.Thousands(c.Budget), textfmt.LineRange(c.FirstKeptLine, last), keptText)
	}
	return f
}

func tooLargeFinding(width16 int64) Finding {
	return Finding{
		Line: 1, Severity: severityOf(CodeFileTooLarge), Code: CodeFileTooLarge,
		Message: fmt.Sprintf("the file is %s UTF-16 code units long, more than node's maximum string length of %s: the runtime's readFile(path, \"utf8\") would throw RangeError: Invalid string length and the session would not load",
			textfmt.Thousands(width16), textfmt.Thousands(MaxStringLength)),
	}
}

// DeepNestingLimit is the stringify depth past which deep-nesting warns.
// node 20's JSON.stringify overflows its stack at about 4,100 levels in a
// bare script (fewer when called deep inside an agent), and then the
// runtime's estimateContextChars throws for the message; a transcript has
// no honest reason to nest a tenth as deep.
const DeepNestingLimit = 1000

func tooDeep(depth int) bool { return depth > DeepNestingLimit }

func deepFinding(m *Message) Finding {
	return Finding{
		Line: m.Line, Severity: severityOf(CodeDeepNesting), Code: CodeDeepNesting,
		Message: fmt.Sprintf("this message nests %s levels deep: node's JSON.stringify overflows its stack at about 4,100 levels, so the runtime's estimateContextChars may throw for it and trimming would fail", textfmt.Thousands(int64(m.Depth))),
	}
}
