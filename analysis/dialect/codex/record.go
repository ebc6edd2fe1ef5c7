package codex

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// The RolloutItem types (codex-rs protocol: `#[serde(tag = "type", content =
// "payload", rename_all = "snake_case")] enum RolloutItem`).
const (
	typeSessionMeta  = "session_meta"
	typeResponseItem = "response_item"
	typeCompacted    = "compacted"
	typeTurnContext  = "turn_context"
	typeEventMsg     = "event_msg"
)

// rolloutType reports whether t is one of the RolloutItem types above.
func rolloutType(t string) bool {
	switch t {
	case typeSessionMeta, typeResponseItem, typeCompacted, typeTurnContext, typeEventMsg:
		return true
	}
	return false
}

// payloadStrings are the members a RolloutItem type's payload must have
// as strings (serde's String fields), in the order they are checked: the
// first one missing is the one named.
func payloadStrings(t string) []string {
	switch t {
	case typeSessionMeta:
		return []string{"id", "timestamp", "cwd", "originator", "cli_version"}
	case typeCompacted:
		return []string{"message"}
	case typeTurnContext:
		return []string{"cwd", "model"}
	case typeEventMsg:
		return []string{"type"}
	}
	return nil
}

// item kinds a record holds, as far as the history sent to the model goes.
type itemKind uint8

const (
	kindNone        itemKind = iota // not sent to the model (metadata, events, unknown response items)
	kindMessage                     // a message (user, developer, system, assistant)
	kindReasoning                   // the model's reasoning item
	kindCall                        // function_call, custom_tool_call, local_shell_call
	kindOutput                      // function_call_output, custom_tool_call_output
	kindCompacted                   // a compaction
	kindTurnContext                 // the settings of a turn (a boundary between turns)
	kindSessionMeta                 // the session's header
	kindEvent                       // an event_msg
)

// callFamily pairs calls with outputs: the Responses API pairs a
// function_call (and a local_shell_call) with a function_call_output, a
// custom_tool_call with a custom_tool_call_output.
type callFamily uint8

const (
	famFunction callFamily = iota + 1
	famCustom
	famToolSearch // newer codex: a client tool_search_call and its tool_search_output
)

// record is what one line that codex's loader reads holds.
type record struct {
	typ      string // RolloutItem type
	ptype    string // the payload's own "type" (response items, events)
	kind     itemKind
	role     string // message role
	callID   string // calls and outputs
	name     string // a call's tool name
	family   callFamily
	cost     int64  // UTF-16 units of the payload's JSON, for items sent to the model
	sentText string // the text whose length is cost (the payload's JSON)
	ts       json.RawMessage
	usage    *usageFacts
	summary  int64     // compacted: cost of the summary message
	replaced []subItem // compacted: replacement_history's calls and outputs
	hasRepl  bool      // compacted: replacement_history present
	isError  bool      // output: a synthetic interrupted result
	sessID   string    // session_meta id
}

// subItem is a call or output inside a compaction's replacement_history.
type subItem struct {
	kind   itemKind
	callID string
	family callFamily
}

type usageFacts struct {
	input, cached, output, reasoning, total int64
	window                                  int64
}

// readRecord reads a line that serde_json parses as a RolloutLine the way
// codex-rs does, and says why the loader skips it when it does not ("" for
// a line it reads).
func readRecord(l []byte) (record, string) {
	top, ok := object(l)
	if !ok {
		return record{}, "a rollout line must be a JSON object"
	}
	var r record
	if _, ok := top.str("timestamp"); !ok {
		return r, `a rollout line needs a string "timestamp"`
	}
	r.ts = top["timestamp"]
	typ, ok := top.str("type")
	if !ok {
		return r, `a rollout line needs a string "type"`
	}
	r.typ = typ
	payload, present := top["payload"]
	if !present {
		return r, `a rollout line needs a "payload"`
	}
	p, isObj := object(payload)
	if rolloutType(typ) && !isObj {
		// Each of these is a struct (or a tagged enum) in codex-rs: serde
		// reads it from an object only.
		return r, typ + "'s payload must be an object"
	}
	if why := p.needStrings(typ, payloadStrings(typ)...); why != "" {
		return r, why
	}
	switch typ {
	case typeSessionMeta:
		r.kind = kindSessionMeta
		r.sessID, _ = p.str("id")
		if !isUUID(r.sessID) {
			return r, fmt.Sprintf("session_meta.id %q is not a UUID (ThreadId reads it with Uuid::parse_str)", truncate(r.sessID, 60))
		}
	case typeResponseItem:
		if why := readResponseItem(p, &r, "response_item"); why != "" {
			return r, why
		}
		if r.kind != kindNone {
			r.sentText = string(payload)
			r.cost = width16(payload)
		}
	case typeCompacted:
		msg, _ := p.str("message")
		r.kind = kindCompacted
		r.sentText = msg
		r.summary = width16([]byte(msg))
		switch p.kindOf("replacement_history") {
		case 0, 'n':
		case '[':
			items, ok := elements(p["replacement_history"])
			if !ok {
				return r, "compacted.replacement_history must be an array of response items"
			}
			r.hasRepl = true
			r.sentText = string(p["replacement_history"])
			r.summary = width16(p["replacement_history"])
			for k, raw := range items {
				io, ok := object(raw)
				if !ok {
					return r, fmt.Sprintf("compacted.replacement_history[%d] must be an object", k)
				}
				var sub record
				if why := readResponseItem(io, &sub, fmt.Sprintf("compacted.replacement_history[%d]", k)); why != "" {
					return r, why
				}
				if sub.kind == kindCall || sub.kind == kindOutput {
					r.replaced = append(r.replaced, subItem{sub.kind, sub.callID, sub.family})
				}
			}
		default:
			return r, "compacted.replacement_history must be an array or null"
		}
	case typeTurnContext:
		r.kind = kindTurnContext
	case typeEventMsg:
		et, _ := p.str("type")
		r.kind = kindEvent
		r.ptype = et
		if et == "token_count" {
			r.usage = readTokenCount(p)
		}
	case "inter_agent_communication", "inter_agent_communication_metadata", "token_usage_record",
		"world_state", "retained_context", "security_risk_score", "realtime_item":
		// Types newer codex versions write (codex-rs/history's
		// RolloutItemWire): read by the codex that wrote them, skipped by
		// an older one; none is the Responses history sessionls models, so
		// sessionls neither checks nor costs them.
		r.kind = kindNone
	default:
		return r, fmt.Sprintf("unknown rollout item type %q (codex reads session_meta, response_item, compacted, turn_context and event_msg, and newer versions a few more)", typ)
	}
	return r, ""
}

// readResponseItem checks a ResponseItem the way serde reads it
// (codex-rs protocol/src/models.rs) and fills r's history facts. An unknown
// type is ResponseItem::Other (`#[serde(other)]`): read, never sent.
func readResponseItem(p obj, r *record, what string) string {
	t, ok := p.str("type")
	if !ok {
		return what + ` needs a string "type"`
	}
	r.ptype = t
	switch t {
	case "message":
		role, ok := p.str("role")
		if !ok {
			return what + ` message needs a string "role"`
		}
		parts, ok := elements(p["content"])
		if p.kindOf("content") != '[' || !ok {
			return what + ` message needs a "content" array`
		}
		for k, part := range parts {
			po, ok := object(part)
			if !ok {
				return fmt.Sprintf("%s content[%d] must be an object", what, k)
			}
			pt, ok := po.str("type")
			if !ok {
				return fmt.Sprintf(`%s content[%d] needs a string "type"`, what, k)
			}
			switch pt {
			case "input_text", "output_text":
				if _, ok := po.str("text"); !ok {
					return fmt.Sprintf(`%s content[%d] (%s) needs a string "text"`, what, k, pt)
				}
			case "input_image":
				if _, ok := po.str("image_url"); !ok {
					return fmt.Sprintf(`%s content[%d] (input_image) needs a string "image_url"`, what, k)
				}
			}
		}
		r.kind = kindMessage
		r.role = role
	case "reasoning":
		if p.kindOf("summary") != '[' {
			return what + ` reasoning needs a "summary" array`
		}
		if why := p.optString(what, "encrypted_content"); why != "" {
			return why
		}
		r.kind = kindReasoning
	case "function_call", "custom_tool_call":
		// Each type's required strings, in the order they are checked:
		// the first one missing is the one named.
		need, family := []string{"name", "arguments", "call_id"}, famFunction
		if t == "custom_tool_call" {
			need, family = []string{"call_id", "name", "input"}, famCustom
		}
		if why := p.needStrings(what+" "+t, need...); why != "" {
			return why
		}
		r.kind, r.family = kindCall, family
		r.callID, _ = p.str("call_id")
		r.name, _ = p.str("name")
	case "local_shell_call":
		if why := p.needStrings(what+" local_shell_call", "status"); why != "" {
			return why
		}
		if p.kindOf("action") != '{' {
			return what + ` local_shell_call needs an "action" object`
		}
		if why := p.optString(what, "call_id"); why != "" {
			return why
		}
		r.kind, r.family, r.name = kindCall, famFunction, "local_shell"
		r.callID, _ = p.str("call_id")
		if r.callID == "" {
			r.kind = kindMessage // no call_id (Chat Completions): nothing to pair
			r.role = "assistant"
		}
	case "function_call_output", "custom_tool_call_output":
		if _, ok := p.str("call_id"); !ok {
			return fmt.Sprintf(`%s %s needs a string "call_id"`, what, t)
		}
		if c := p.kindOf("output"); c != '"' && c != '[' && c != '{' {
			// A string or an array of content items; newer versions also
			// write an object ({content | content_items}).
			return fmt.Sprintf(`%s %s needs an "output": a string, an array of content items or an object`, what, t)
		}
		r.kind, r.family = kindOutput, famFunction
		if t == "custom_tool_call_output" {
			r.family = famCustom
		}
		r.callID, _ = p.str("call_id")
		r.isError = string(p["output"]) == `"`+syntheticOutput+`"`
	case "tool_search_call", "tool_search_output":
		// Newer codex versions (normalize.rs: ensure_call_outputs_present,
		// remove_orphan_outputs): a client tool search with a call_id is
		// paired like a function call; a server one's output stands alone.
		if why := p.optString(what, "call_id"); why != "" {
			return why
		}
		id, _ := p.str("call_id")
		exec, _ := p.str("execution")
		if id == "" || exec == "server" {
			break
		}
		r.callID, r.family, r.name = id, famToolSearch, "tool_search"
		r.kind = kindCall
		if t == "tool_search_output" {
			r.kind = kindOutput
		}
	case "web_search_call":
		r.kind = kindMessage
		r.role = "assistant"
	default:
		// ResponseItem::Other, ghost_snapshot, compaction: read, not sent
		// as conversation (a compaction item's encrypted content is the
		// model's own; it is counted where the API bills it, not here).
	}
	return ""
}

// readTokenCount reads an event_msg token_count's info (null before the
// first response of a session).
func readTokenCount(p obj) *usageFacts {
	info, ok := object(p["info"])
	if !ok {
		return nil
	}
	last, ok := object(info["last_token_usage"])
	if !ok {
		return nil
	}
	u := &usageFacts{
		input:     num(last, "input_tokens"),
		cached:    num(last, "cached_input_tokens"),
		output:    num(last, "output_tokens"),
		reasoning: num(last, "reasoning_output_tokens"),
		total:     num(last, "total_tokens"),
		window:    num(info, "model_context_window"),
	}
	if u.total == 0 {
		u.total = u.input + u.output
	}
	return u
}

func num(o obj, k string) int64 {
	raw, ok := o[k]
	if !ok {
		return 0
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil || f < 0 || f > 1<<53 {
		return 0
	}
	return int64(f)
}

// isUUID reports whether uuid's Uuid::parse_str accepts s: 32 hex digits,
// alone ("simple"), grouped 8-4-4-4-12 by hyphens, and that between braces
// or after "urn:uuid:".
func isUUID(s string) bool {
	switch {
	case len(s) == 38 && s[0] == '{' && s[37] == '}':
		s = s[1:37]
	case len(s) == 45 && s[:9] == "urn:uuid:":
		s = s[9:]
	}
	hex := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
	switch len(s) {
	case 32:
		for i := 0; i < 32; i++ {
			if !hex(s[i]) {
				return false
			}
		}
		return true
	case 36:
		for i := 0; i < 36; i++ {
			if i == 8 || i == 13 || i == 18 || i == 23 {
				if s[i] != '-' {
					return false
				}
			} else if !hex(s[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// truncate shortens s to at most n bytes, on a character boundary, for a
// message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
