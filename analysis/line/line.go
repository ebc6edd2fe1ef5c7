// Package line decides, for one physical line of a session file, what the
// runtime's JSON.parse + parseSessionMessage make of it, and what the
// resulting message costs under estimateContextChars.
//
// It is one pass over the line's bytes that validates the JSON text, checks
// the record rules and measures JSON.stringify of the normalized message,
// without building a tree of values. The rules it follows are sections 1 to
// 5 of docs/semantics.md (reading, JSON, record, normalized message, cost).
package line

// Verdict is what the runtime makes of a line.
type Verdict uint8

const (
	// Valid: JSON.parse accepts the line and parseSessionMessage returns a message.
	Valid Verdict = iota
	// InvalidJSON: JSON.parse throws.
	InvalidJSON
	// InvalidRecord: the JSON parses but parseSessionMessage returns undefined.
	InvalidRecord
)

func (v Verdict) String() string {
	switch v {
	case Valid:
		return "valid"
	case InvalidJSON:
		return "invalid-json"
	case InvalidRecord:
		return "invalid-record"
	}
	return "unknown"
}

// Role is the role of a valid message.
type Role uint8

const (
	RoleNone Role = iota
	RoleUser
	RoleAssistant
	RoleTool
)

func (r Role) String() string {
	switch r {
	case RoleUser:
		return "user"
	case RoleAssistant:
		return "assistant"
	case RoleTool:
		return "tool"
	}
	return ""
}

// Span is a half-open range [Start, End) inside one line, both as byte
// offsets into the line's raw bytes and as 0-based UTF-16 columns (what LSP
// positions use). Columns count the decoded text: an invalid UTF-8 sequence
// is one U+FFFD, a character outside the BMP is two units.
type Span struct {
	Start, End       int // bytes
	StartCol, EndCol int // UTF-16 code units
}

// Call is one element of an assistant message's toolCalls.
type Call struct {
	// ID is the decoded string value of "id" (the last one, if repeated).
	// Strings are held as WTF-8: the UTF-8 of the JS string, with a lone
	// surrogate written as its 3-byte generalized form, so two IDs are equal
	// exactly when the runtime's === says so.
	ID string
	// IDSpan covers the id's string literal, quotes included.
	IDSpan Span
	// Name is the decoded "name" value (WTF-8).
	Name string
}

// Result is the verdict on one line and, for a valid line, the facts about
// its message that units, costs and the editor features need.
type Result struct {
	Verdict Verdict
	// Reason says what is wrong, for invalid lines, without the
	// "invalid session JSON at line N: " prefix, e.g.
	// `unexpected character "}"`, `toolCalls[2].name must be a string`,
	// `unknown role "system"`.
	Reason string
	// Span is where it is wrong: for invalid JSON it covers the first
	// offending character, where V8's "at position N" points (for a bad
	// escape the character after the backslash, for a leading zero the
	// digit after it), except that an unterminated string spans from its
	// opening quote to the end of the line, and an unexpected end of line
	// is the empty span at the end; for an invalid record it covers the
	// member at fault (key through value; the last one when the key is
	// repeated) or, when the member is missing, the whole value (the whole
	// element for a toolCalls element). For a valid line it covers the
	// line's JSON value.
	Span Span

	Role Role
	// Cost is JSON.stringify(normalized message).length + 1, in UTF-16 units.
	Cost int64
	// ToolCallID and ToolCallIDSpan (the string literal) for a tool message.
	ToolCallID     string
	ToolCallIDSpan Span
	IsError        bool
	// Calls of an assistant message, in order.
	Calls []Call

	// Depth is how deeply JSON.stringify recurses through the normalized
	// message of a valid line: 1 for user and tool messages, 2 + the depth of
	// the deepest toolCalls element for an assistant (counting, as written,
	// values a later duplicate key discards, so it may overstate). JSON.parse accepts any
	// nesting (V8 parses iteratively), but node 20's JSON.stringify throws
	// "Maximum call stack size exceeded" somewhere between 3,000 and 5,000
	// levels, so the runtime's estimateContextChars fails on such a message.
	Depth int

	// Width16 is the UTF-16 length of the whole raw line as the runtime's
	// readFile decodes it (used for the file-size limit and for columns).
	Width16 int
}
