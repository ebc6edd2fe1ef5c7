// Package analysis is sessionls's engine: it tells, for a session file, what
// the agent runtime's loadSession / estimateContextChars / trimContext will do
// with it, and adds checks of its own that the runtime does not make.
//
// It is pure Go with no editor or protocol imports. The per-line verdicts and
// costs come from package line; this package groups valid messages into
// units, finds the cutoff for a budget, runs the semantic checks, reads files
// as streams split across cores, and keeps an incrementally re-analysed
// Document for the language server.
package analysis

import (
	"errors"
	"fmt"

	"github.com/sessionls/sessionls/analysis/line"
)

// Severity of a finding.
type Severity uint8

const (
	SeverityError Severity = iota + 1
	SeverityWarning
	SeverityInfo
)

func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityInfo:
		return "info"
	}
	return "unknown"
}

// Stable finding codes. Every one can be turned off with Options.Disabled;
// the registry in rules.go holds each one's severity, summary and docs.
const (
	CodeInvalidJSON       = "invalid-json"        // JSON.parse throws on the line
	CodeInvalidRecord     = "invalid-record"      // parseSessionMessage rejects the line
	CodeOrphanToolResult  = "orphan-tool-result"  // no earlier assistant declares the toolCallId
	CodeMissingToolResult = "missing-tool-result" // a declared call never gets its result
	CodeDuplicateCallID   = "duplicate-call-id"   // a call id declared a second time
	CodeSweptMessage      = "swept-message"       // a unit carries a message that is not one of its results
	CodeFileTooLarge      = "file-too-large"      // more UTF-16 units than readFile can hold in one string
	CodeDeepNesting       = "deep-nesting"        // JSON.stringify may overflow node's stack on the message
	CodeBudgetCutoff      = "budget-cutoff"       // where the budget cuts
	CodeBudgetExceeded    = "budget-exceeded"     // the runtime's trimContext throws for this budget
)

// Codes of the Claude Code dialect (analysis/dialect/claude).
const (
	CodeBrokenParentChain = "broken-parent-chain" // a parentUuid that names no record
	CodeDuplicateUUID     = "duplicate-uuid"      // a uuid two records share
	CodeMalformedRecord   = "malformed-record"    // a record of a known type in a shape Claude Code does not write
)

// MaxStringLength is V8's limit on one string (node's buffer.constants.
// MAX_STRING_LENGTH on 64-bit): readFile(path, "utf8") throws past it.
const MaxStringLength = 0x1fffffe8

// The runtime's two trimContext errors, verbatim.
var (
	ErrBudgetTooSmall = errors.New("context budget cannot contain the smallest consistent message unit")
	ErrEmptyContext   = errors.New("context budget cannot be empty")
)

// Message is a valid line's message, as the runtime holds it.
type Message struct {
	Line int // physical line, 1-based
	Role line.Role
	// answer and nextResult link tool results to the calls they answer
	// (answers.go: Report.AnsweredCall, Report.Results). Each sits in the
	// padding after the field before it, so a Message is no larger.
	answer         int32
	Cost           int64
	ToolCallID     string    // tool
	ToolCallIDSpan line.Span // tool
	IsError        bool      // tool
	nextResult     int32
	Calls          []line.Call // assistant
	Depth          int         // how deeply JSON.stringify recurses (line.Result.Depth; node overflows past ~4,100)
	// Tokens is the token count of the text whose length is Cost - 1
	// (JSON.stringify of the normalized message), when Options.Tokens is
	// set; 0 otherwise.
	Tokens int64
}

// Unit is a group of messages that trimContext keeps or drops together.
type Unit struct {
	First, Last        int   // indexes into Report.Messages, inclusive
	StartLine, EndLine int   // physical lines of the first and last message
	Chars              int64 // sum of the messages' costs
	FromNewest         int64 // Chars of this unit plus every newer unit
	// Tokens and TokensFromNewest are the same sums in tokens, when
	// Options.Tokens is set.
	Tokens           int64
	TokensFromNewest int64
}

// Len is the number of messages in the unit.
func (u Unit) Len() int { return u.Last - u.First + 1 }

// Cutoff is where a budget cuts: trimContext keeps units[FirstUnit:].
type Cutoff struct {
	Budget        int64
	FirstUnit     int // index into Report.Units
	FirstKeptLine int // physical line of the first kept message
	KeptUnits     int
	KeptMessages  int
	KeptChars     int64
	// ByTokens: Budget is in tokens (Options.TokenBudget). KeptTokens is
	// set whenever tokens are counted.
	ByTokens   bool
	KeptTokens int64
}

// Related points at another place a finding refers to.
type Related struct {
	Line    int // 1-based physical line
	Span    line.Span
	Message string
}

// Finding is one diagnostic: a runtime verdict or one of our checks.
type Finding struct {
	Line int // 1-based physical line
	// Span within Line. The zero Span (empty, at column 0) means the finding
	// is about the line as a whole (swept-message, budget-cutoff,
	// budget-exceeded, file-too-large): an editor should mark the line.
	Span     line.Span
	Severity Severity
	Code     string
	Message  string
	Related  []Related
}

// Options tune an analysis.
type Options struct {
	// Budget in characters; 0 means none. With a budget the report carries
	// the cutoff and a budget-cutoff or budget-exceeded finding.
	Budget int64
	// Disabled codes produce no findings (the verdicts still count: a file
	// with an invalid line does not load even if invalid-json is disabled).
	Disabled map[string]bool
	// SkipMessages leaves Report.Messages nil; Units (whose First and Last
	// still count valid messages from 0), Findings, Cutoff and the totals
	// are complete. It lets a huge stream be checked in bounded memory: the
	// engine then keeps 24 bytes per message (32 when it counts tokens) and
	// one entry per call id.
	SkipMessages bool
	// Tokens, when set, counts the tokens of every valid message (in the
	// parsing workers, so across cores): Message.Tokens, Unit.Tokens,
	// Report.TotalTokens.
	Tokens TokenCounter
	// TokenBudget packs units by tokens instead of characters, with the
	// same unit rules (it needs Tokens, and takes the place of Budget).
	TokenBudget int64
	// Observer, when set, is shown every valid message once, in line order
	// (with its final physical line and, with Tokens, its token count), as
	// the report is assembled, from the goroutine that called Analyze or
	// AnalyzeReader (a Document, which patches its report on edits, shows
	// it nothing). It
	// lets a caller fold what it needs from the messages, per-role costs or
	// tool names, while the report keeps none (SkipMessages), so a map of
	// a gigabyte stream costs a few bytes per message.
	Observer MessageObserver
	// MaxFindingsPerCode, when > 0, keeps the first that many findings of
	// each code (in the order they are found: line order for the line
	// verdicts) and counts the rest in Report.Omitted, so a file of a
	// million blank lines costs a few bytes a line, not ~300. The verdicts
	// and totals (InvalidLines, FirstInvalidLine, the cutoff) stay exact.
	MaxFindingsPerCode int
	// OmittedLines names the codes whose omitted findings' lines
	// Report.Omitted keeps (a LineList: a few bytes for a run of lines,
	// about two for a line alone), for a caller that still visits them
	// (the CLI counts their fixes).
	OmittedLines map[string]bool
	// JSONOnly reads the file at JSON.parse's level alone, for a session
	// format whose records are not the runtime's messages (package
	// analysis/dialect): a line is valid when JSON.parse accepts it,
	// whatever its value, and a refused line gets the same verdict, span
	// and cause (invalid-json, truncated-record, interleaved-record,
	// zero-filled, split-record) as on the seed path. Valid lines become
	// Records, not Messages: the report has no messages, units, cutoff or
	// message checks until the dialect completes it (Report.Complete).
	// Budget, TokenBudget, Tokens and Observer are ignored.
	JSONOnly bool
	// Records, with JSONOnly, reads every valid line's record: Decode in
	// the parsing workers (across cores), Record in line order.
	Records RecordReader
}

// RecordReader reads the records of a JSON-only analysis
// (Options.JSONOnly), so that a dialect decodes them across cores and
// sees them in order, from a stream it does not hold.
type RecordReader interface {
	// Decode reads one valid line (without its '\n'). It is called from
	// the parsing workers, concurrently, in no particular order; what it
	// returns must not refer to line's memory, which is reused.
	Decode(line []byte) any
	// Record is given each valid line's Record, with Decode's value, once,
	// in line order, from the goroutine that called Analyze or
	// AnalyzeReader.
	Record(rec *Record)
}

// Record is a line JSON.parse accepts, in a JSON-only analysis.
type Record struct {
	Line int // physical line, 1-based
	// Offset is the byte offset of the line's first byte in the input, and
	// Len its length in bytes (without the '\n'): the record's bytes are
	// input[Offset:Offset+Len].
	Offset int64
	Len    int
	// Span covers the line's JSON value; Width16 is the line's UTF-16
	// length (line.Result's).
	Span    line.Span
	Width16 int
	// Value is what Options.Records decoded (nil without one).
	Value any
}

// MessageObserver sees the messages of an analysis (Options.Observer). m
// and what it refers to (Calls) must not be changed, nor m kept after the
// call returns; its strings may be kept. owner is, for a tool result, the
// index (among the valid messages, from 0) of the assistant message whose
// call it answers: the nearest earlier one declaring its toolCallId, the
// link trimContext groups units by (Report.AnsweredCall); -1 for an
// orphan result and for every other message.
type MessageObserver interface {
	Observe(m *Message, owner int)
}

// Omitted counts the findings of one code past Options.MaxFindingsPerCode.
type Omitted struct {
	Code     string
	Severity Severity
	N        int
	// First is the line of the first omitted finding (the first found).
	First int
	// Lines of the omitted findings, in the order found, when
	// Options.OmittedLines names the code.
	Lines LineList
}

// findingLimit applies Options.MaxFindingsPerCode.
type findingLimit struct {
	max     int
	lines   map[string]bool
	kept    map[string]int
	omitted []Omitted
}

func newFindingLimit(opts Options) *findingLimit {
	if opts.MaxFindingsPerCode <= 0 {
		return nil
	}
	return &findingLimit{max: opts.MaxFindingsPerCode, lines: opts.OmittedLines, kept: map[string]int{}}
}

// keep reports whether the next finding of code (at line) is kept, and
// counts it when it is not. A nil limit keeps everything.
func (l *findingLimit) keep(code string, line int) bool {
	if l == nil {
		return true
	}
	if l.kept[code] < l.max {
		l.kept[code]++
		return true
	}
	i := 0
	for i < len(l.omitted) && l.omitted[i].Code != code {
		i++
	}
	if i == len(l.omitted) {
		l.omitted = append(l.omitted, Omitted{Code: code, Severity: severityOf(code), First: line})
	}
	o := &l.omitted[i]
	o.N++
	if l.lines[code] {
		o.Lines.Add(line)
	}
	return false
}

// TokenCounter counts the tokens of a valid line's message; package
// analysis/tokens provides one. It must be safe for concurrent use.
type TokenCounter interface {
	Message(line []byte) (int, error)
}

// TokenError is a message whose tokens could not be counted (a hostile
// message; see line.ErrTooComplex).
type TokenError struct {
	Line int // physical line
	Err  error
}

func (e *TokenError) Error() string {
	return fmt.Sprintf("cannot count the tokens of line %d: %v", e.Line, e.Err)
}

func (e *TokenError) Unwrap() error { return e.Err }

// Report is the whole analysis of one file.
type Report struct {
	Lines    int // physical lines, counting a last line without '\n'
	Width16  int64
	Messages []Message
	Units    []Unit // oldest first
	Findings []Finding
	// Omitted counts, by code, the findings past
	// Options.MaxFindingsPerCode (not in Findings).
	Omitted []Omitted
	// Records are the valid lines of a JSON-only analysis
	// (Options.JSONOnly), in line order; nil with SkipMessages.
	Records []Record
	// FirstInvalidLine is the line where loadSession throws; 0 if it loads.
	FirstInvalidLine int
	InvalidLines     int
	TotalChars       int64
	// TotalTokens is the sum of the messages' tokens (Options.Tokens).
	TotalTokens int64
	// TokensErr is the first message whose tokens could not be counted;
	// with it, token counts are incomplete and no token cutoff is made.
	TokensErr *TokenError
	// Cutoff and CutoffErr are set when Options.Budget > 0 and the file loads.
	Cutoff    *Cutoff
	CutoffErr error
	// budgetByTokens: the budget of Cutoff or CutoffErr is in tokens
	// (MinBudget's unit).
	budgetByTokens bool
	// loadMessage is the first invalid line's finding message, kept even
	// when its code is disabled (LoadFailure reads it).
	loadMessage string
	// Usage is the model's reported usage per turn and Compactions the
	// compaction points, in line order, for the dialects whose files
	// record them (turns.go); nil for the seed runtime.
	Usage       []Usage
	Compactions []Compaction
}

// Loads reports whether loadSession would return the messages.
func (r *Report) Loads() bool { return r.FirstInvalidLine == 0 && r.Width16 <= MaxStringLength }
