package analysis

import "github.com/sessionls/sessionls/analysis/line"

// Which call a tool result answers is decided once, by the linker, while
// the messages are read: the nearest earlier assistant message declaring
// the result's toolCallId, which is the message trimContext searches for
// when it groups units (node.owner). linkAnswers records it in the
// report's messages, so that a language server can go from a result to
// its call and back without scanning:
//
//   - a tool result's answer is 1 + the index of the assistant it answers;
//   - an assistant's answer is 1 + the index of its first result, and each
//     result's nextResult is 1 + the index of the next result answering
//     the same assistant, so its results form a list in file order;
//   - 0 is none (an orphan, an assistant nobody answers, a hand-made
//     Message).
//
// The links cost no memory (they fill padding in Message) and no work but
// one pass over the nodes; a report made with SkipMessages has no messages
// to link.

// linkAnswers links msgs, the report's messages, from the owners of nodes
// (one node per message, in the same order).
func linkAnswers(msgs []Message, nodes *nodeList) {
	if len(msgs) != nodes.len() {
		return // SkipMessages
	}
	// Backwards, so that each result is pushed on the front of its
	// assistant's list and the lists come out in file order.
	for i := len(msgs) - 1; i >= 0; i-- {
		nd := nodes.at(i)
		if nd.role != line.RoleTool || nd.owner < 0 {
			continue
		}
		owner := &msgs[nd.owner]
		msgs[i].answer = nd.owner + 1
		msgs[i].nextResult = owner.answer
		owner.answer = int32(i) + 1
	}
}

// keepAnswers gives m, a message re-read from its edited line, the links
// of old, the message it replaces. The caller has checked that the two
// have the same shape (role, ids and their spans), so they link alike.
func keepAnswers(m Message, old *Message) Message {
	m.answer, m.nextResult = old.answer, old.nextResult
	return m
}

// AnsweredCall returns, for tool result m, the assistant message that
// declares the call it answers and the index of that call in the
// message's Calls: the nearest earlier assistant declaring the result's
// toolCallId, as trimContext links them (when the message declares the id
// more than once, the last of those calls). ok is false when m is not a
// tool result, when no earlier assistant declares its id (an orphan), and
// when m is out of range (always, in a report made with SkipMessages).
func (r *Report) AnsweredCall(m int) (msg, call int, ok bool) {
	if m < 0 || m >= len(r.Messages) || r.Messages[m].Role != line.RoleTool || r.Messages[m].answer == 0 {
		return -1, -1, false
	}
	a := int(r.Messages[m].answer) - 1
	id := r.Messages[m].ToolCallID
	calls := r.Messages[a].Calls
	for k := len(calls) - 1; k >= 0; k-- {
		if calls[k].ID == id {
			return a, k, true
		}
	}
	return -1, -1, false // not reached: the linker matched the id
}

// Results returns the tool results that answer call c of assistant
// message a, oldest first: the later tool results with the call's id, up
// to the next assistant declaring that id again (later results answer
// that one). Calls that share an id within one message share their
// results. It is nil when there are none, when a is not an assistant
// message or c not one of its calls (always, in a report made with
// SkipMessages).
func (r *Report) Results(a, c int) []int {
	if a < 0 || a >= len(r.Messages) || r.Messages[a].Role != line.RoleAssistant || c < 0 || c >= len(r.Messages[a].Calls) {
		return nil
	}
	id := r.Messages[a].Calls[c].ID
	var out []int
	for t := int(r.Messages[a].answer) - 1; t >= 0; t = int(r.Messages[t].nextResult) - 1 {
		if r.Messages[t].ToolCallID == id {
			out = append(out, t)
		}
	}
	return out
}
