package analysis

import (
	"bytes"
	"encoding/json"
	"unicode/utf16"

	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/transcript"
)

// fakeParse stands in for line.Parse in tests of the engine's plumbing, so
// they do not depend on the real parser's wording or costs. It understands
// well-formed JSON only: cost is the line's length + 1, and spans are found
// by searching the raw bytes (the test lines are ASCII).
func fakeParse(b []byte) line.Result {
	r := line.Result{Width16: len(utf16.Encode([]rune(string(b))))}
	var v transcript.Record
	if !json.Valid(b) {
		r.Verdict, r.Reason = line.InvalidJSON, "not JSON"
		r.Span = line.Span{End: 1, EndCol: 1}
		return r
	}
	if err := json.Unmarshal(b, &v); err != nil || v.Role == nil || v.Content == nil {
		r.Verdict, r.Reason = line.InvalidRecord, "not a message"
		return r
	}
	r.Cost = int64(len(b) + 1)
	from := 0 // calls are found in order, so a repeated id gets its own span
	span := func(lit string) line.Span {
		i := from + bytes.Index(b[from:], []byte(lit))
		from = i + len(lit)
		return line.Span{Start: i, End: i + len(lit), StartCol: i, EndCol: i + len(lit)}
	}
	switch *v.Role {
	case "user":
		r.Role = line.RoleUser
	case "assistant":
		if v.ToolCalls == nil {
			r.Verdict, r.Reason = line.InvalidRecord, "assistant message requires a toolCalls array"
			return r
		}
		r.Role = line.RoleAssistant
		r.Calls = []line.Call{}
		for _, c := range *v.ToolCalls {
			if c.ID == nil || c.Name == nil {
				r.Verdict, r.Reason = line.InvalidRecord, "bad call"
				return r
			}
			r.Calls = append(r.Calls, line.Call{ID: *c.ID, Name: *c.Name, IDSpan: span(`"` + *c.ID + `"`)})
		}
	case "tool":
		if v.ToolCallID == nil || v.IsError == nil {
			r.Verdict, r.Reason = line.InvalidRecord, "tool message requires toolCallId and isError"
			return r
		}
		r.Role, r.ToolCallID, r.IsError = line.RoleTool, *v.ToolCallID, *v.IsError
		r.ToolCallIDSpan = span(`"` + *v.ToolCallID + `"`)
	default:
		r.Verdict, r.Reason = line.InvalidRecord, "unknown role "+*v.Role
		return r
	}
	return r
}

// fakeEngine is the engine with fakeParse and small knobs.
func fakeEngine() engine {
	e := newEngine()
	e.parse = fakeParse
	return e
}
