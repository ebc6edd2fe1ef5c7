package lsp

import (
	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
)

// declaringCall finds, for the tool message m, the call its toolCallId
// links to: the nearest earlier assistant declaring that id, as the
// runtime's trimContext links them. It returns the message index and the
// call, or -1.
func declaringCall(rep *analysis.Report, m int) (int, line.Call) {
	id := rep.Messages[m].ToolCallID
	for i := m - 1; i >= 0; i-- {
		msg := &rep.Messages[i]
		if msg.Role != line.RoleAssistant {
			continue
		}
		// The last declaration in the message wins if an id repeats in it.
		for k := len(msg.Calls) - 1; k >= 0; k-- {
			if msg.Calls[k].ID == id {
				return i, msg.Calls[k]
			}
		}
	}
	return -1, line.Call{}
}

// resultsOf lists the tool messages that link to call id declared by the
// assistant message a: later tool messages with that toolCallId, up to the
// next assistant that declares the same id again (later results link to it).
func resultsOf(rep *analysis.Report, a int, id string) []int {
	var out []int
	for i := a + 1; i < len(rep.Messages); i++ {
		msg := &rep.Messages[i]
		switch msg.Role {
		case line.RoleTool:
			if msg.ToolCallID == id {
				out = append(out, i)
			}
		case line.RoleAssistant:
			for _, c := range msg.Calls {
				if c.ID == id {
					return out
				}
			}
		}
	}
	return out
}
