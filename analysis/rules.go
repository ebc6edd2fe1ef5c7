package analysis

// The code lists in README.md and the editor packages are generated from
// the registry below; TestGeneratedFilesUpToDate fails when they drift.
//go:generate go run ../tools/gendocs

import (
	"maps"
	"strings"
)

// Fixability says whether a finding of a code can be repaired by editing
// the file.
type Fixability uint8

const (
	FixNone      Fixability = iota // no edit can repair it (or none is ours to make)
	FixSometimes                   // some causes have a fix, others do not
	FixAlways                      // every finding has a fix
)

func (f Fixability) String() string {
	switch f {
	case FixSometimes:
		return "sometimes"
	case FixAlways:
		return "always"
	}
	return "none"
}

// Fix is one repair known for a code. A safe fix keeps every message's
// meaning (the runtime would load what the writer meant); an unsafe one
// changes or drops content, so a person has to confirm it.
type Fix struct {
	Title string
	Safe  bool
}

// Scope is what a rule's findings depend on. An edited Document derives
// from it what an edit makes it recompute (Document.patch): a rule that
// declares too little goes stale on incremental edits, and
// TestIncrementalEveryRule catches it.
type Scope uint8

const (
	// ScopeLine: one line. For a refused line, its bytes and whether the
	// refused lines around it are pieces of one record (its cause); for a
	// valid message, the facts of it the rule Reads.
	ScopeLine Scope = iota
	// ScopeUnit: how messages link: their roles and tool-call ids (and
	// the facts the rule Reads).
	ScopeUnit
	// ScopeFile: the whole file, its size or its units' costs: made by
	// sizeAndBudget from the file's totals, after every analysis and
	// every patch.
	ScopeFile
	// ScopeDialect: made by a dialect's own collector over the whole file
	// (analysis/dialect), never by the engine or a Document.
	ScopeDialect
)

func (s Scope) String() string {
	switch s {
	case ScopeUnit:
		return "unit"
	case ScopeFile:
		return "file"
	case ScopeDialect:
		return "dialect"
	}
	return "line"
}

// Fact is a fact of a valid message a rule of line or unit scope reads.
// An edit that keeps every fact some rule reads (and the role and ids,
// which units are made of) keeps the findings of those rules; any other
// edit of a valid message makes the Document analyse the file again.
type Fact uint8

const (
	FactRole Fact = 1 << iota // its role
	FactIDs                   // its toolCallId, its calls' ids, and their spans
	FactDeep                  // whether it nests past DeepNestingLimit
	// FactLine is anything else of the line (its content, its cost): an
	// edit of the line is never patched.
	FactLine
)

// Rule is everything known about one finding code: what the CLI's help,
// `sessionls rules`, SARIF, the language server's settings and the editor
// docs say about it, and the severity the engine gives its findings.
type Rule struct {
	Code     string
	Severity Severity // the severity of the code's findings (but see In)
	// In gives the code another severity in the files of a dialect (by
	// its name): a tool call without its result is harmless to the
	// runtime, but the next request of a resumed Claude Code or Codex
	// session fails with the API's error, so there it is an error.
	In      map[string]Severity
	Summary string // one plain-text line
	Fix     Fixability
	Fixes   []Fix // the repairs known, when Fix is not FixNone: from the fix table (fixkinds.go)
	Doc     string
	// Scope and Reads are what its findings depend on (see Scope).
	Scope Scope
	Reads Fact
}

// SeverityIn is the severity of the code's findings in the files of the
// named dialect.
func (r Rule) SeverityIn(dialect string) Severity {
	if s, ok := r.In[dialect]; ok {
		return s
	}
	return r.Severity
}

// Help is the rule's documentation as markdown: Doc, then the fixes.
func (r Rule) Help() string {
	if len(r.Fixes) == 0 {
		return r.Doc
	}
	var b strings.Builder
	b.WriteString(r.Doc)
	b.WriteString("\n\nFixes:")
	for _, f := range r.Fixes {
		b.WriteString("\n- ")
		b.WriteString(f.Title)
		if f.Safe {
			b.WriteString(" (safe)")
		} else {
			b.WriteString(" (unsafe: a person must confirm it)")
		}
	}
	return b.String()
}

// registry is the rule table. Its order is the order of Codes (and of the
// SARIF ruleIndex): append new codes at the end. It is never written; Rules
// hands out copies.
var registry = [...]Rule{
	{
		Code: CodeInvalidJSON, Severity: SeverityError, Fix: FixSometimes,
		Scope:   ScopeLine,
		Summary: "A line that JSON.parse rejects: the runtime refuses the whole file.",
		Doc: "The runtime's `loadSession` splits the file on `\\n` and calls `JSON.parse` on every " +
			"line that is not exactly empty; the first line it cannot parse makes it throw, and the " +
			"whole session is refused, not just that line. A line holding only spaces or `\\r`, a " +
			"byte order mark, a trailing comma, single quotes or two records on one line all count. " +
			"The finding points at the first offending character and the first one says where the " +
			"runtime stops. Example: `{\"role\":\"user\",\"content\":\"hi\",}` is refused for the comma " +
			"before `}`.",
	},
	{
		Code: CodeInvalidRecord, Severity: SeverityError, Fix: FixSometimes,
		Scope:   ScopeLine,
		Summary: "A line that parses but is not a valid session message: the runtime refuses the whole file.",
		Doc: "After `JSON.parse`, the runtime's `parseSessionMessage` checks the record: an object " +
			"whose `role` is `user`, `assistant` or `tool` and whose `content` is a string; an " +
			"assistant needs a `toolCalls` array of objects with string `id` and `name` and an " +
			"`input`; a tool result needs a string `toolCallId` and a boolean `isError`. The first " +
			"rule that fails makes `loadSession` throw and refuse the whole file; the message names " +
			"the rule and the range points at the member at fault. Example: " +
			"`{\"role\":\"system\",\"content\":\"…\"}` is refused with `unknown role \"system\"`.",
	},
	{
		Code: CodeOrphanToolResult, Severity: SeverityWarning, Fix: FixAlways,
		In:    map[string]Severity{"claude-code": SeverityError, "codex": SeverityError},
		Scope: ScopeUnit, Reads: FactRole | FactIDs,
		Summary: "A tool result that no earlier assistant message declares.",
		Doc: "`trimContext` groups a tool result with the nearest earlier assistant whose " +
			"`toolCalls` declare its `toolCallId`. When none does, the runtime loads the result " +
			"anyway and keeps it as a unit of its own, so it can survive trimming without the call " +
			"it answers, and the model sees an answer to a question it never asked (most model APIs " +
			"reject such a history). Example: a `{\"role\":\"tool\",\"toolCallId\":\"call_9\",…}` line " +
			"with no `call_9` in any assistant above it.",
	},
	{
		Code: CodeMissingToolResult, Severity: SeverityWarning, Fix: FixSometimes,
		In:    map[string]Severity{"claude-code": SeverityError, "codex": SeverityError},
		Scope: ScopeUnit, Reads: FactRole | FactIDs,
		Summary: "A declared tool call that never gets its result.",
		Doc: "An assistant message declares a call in `toolCalls` and no later tool result answers " +
			"it (before the id is declared again, if it is). The runtime does not mind, but the " +
			"model is sent a call without its result, which most model APIs reject or the model " +
			"misreads as a pending action. Example: an assistant declares `call_1` and `call_2` and " +
			"only a result for `call_1` follows.",
	},
	{
		Code: CodeDuplicateCallID, Severity: SeverityWarning, Fix: FixNone,
		In:    map[string]Severity{"claude-code": SeverityError},
		Scope: ScopeUnit, Reads: FactRole | FactIDs,
		Summary: "A tool call id declared a second time.",
		Doc: "A call id that an assistant declares when an earlier declaration (in this message or " +
			"an earlier one) already used it. `trimContext` pairs a tool result with the nearest " +
			"earlier declaration, so a result meant for the first call can be grouped with the " +
			"second, and units (what is kept or dropped together) are not what the writer meant. " +
			"Example: two assistant messages that both declare `call_1`.",
	},
	{
		Code: CodeSweptMessage, Severity: SeverityInfo, Fix: FixNone,
		Scope: ScopeUnit, Reads: FactRole | FactIDs,
		Summary: "A message swept into a tool-call unit that is not one of its results.",
		Doc: "A unit runs from an assistant to the last tool result that answers it, and " +
			"`trimContext` keeps or drops everything in between together. A user message, another " +
			"assistant, or a tool result answering a different call that sits inside that span is " +
			"swept into the unit: it cannot be trimmed on its own, and the unit costs more than its " +
			"calls. Example: assistant (declares `call_1`), user, tool (`call_1`): the user message " +
			"is swept in.",
	},
	{
		Code: CodeFileTooLarge, Severity: SeverityWarning, Fix: FixNone,
		Scope:   ScopeFile,
		Summary: "A file longer than the runtime can read into one string.",
		Doc: "The runtime reads the whole file with `readFile(path, \"utf8\")`, which throws " +
			"`RangeError: Invalid string length` when the text is longer than node's maximum " +
			"string (0x1fffffe8 UTF-16 code units, about 512 MiB of ASCII). Such a file never " +
			"loads, whatever its lines hold; sessionls still checks every line. Example: a 600 MB " +
			"transcript.",
	},
	{
		Code: CodeDeepNesting, Severity: SeverityWarning, Fix: FixNone,
		Scope: ScopeLine, Reads: FactDeep,
		Summary: "A message nested so deeply that node's JSON.stringify may overflow its stack, and trimContext would throw.",
		Doc: "The runtime measures a message with `JSON.stringify`, which recurses once per level " +
			"of nesting; node 20 overflows its stack at about 4,100 levels (fewer deep inside an " +
			"agent), and then `estimateContextChars` throws and trimming fails. sessionls warns " +
			"past 1,000 levels, which no honest transcript reaches. Example: a tool input of " +
			"5,000 nested arrays, `[[[[…]]]]`.",
	},
	{
		Code: CodeBudgetCutoff, Severity: SeverityInfo, Fix: FixNone,
		Scope:   ScopeFile,
		Summary: "Where the character budget cuts the session.",
		Doc: "With a budget (`--budget`, or the editor's `budget` setting), `trimContext` packs " +
			"units from the newest and stops at the first that does not fit. This finding sits on " +
			"the first kept line and says how many units, messages and characters are kept and how " +
			"many messages above are trimmed. Example: `budget 8,000 keeps lines 12–40: 3 units, " +
			"7,912 chars; 11 messages above are trimmed`.",
	},
	{
		Code: CodeBudgetExceeded, Severity: SeverityError, Fix: FixNone,
		Scope:   ScopeFile,
		Summary: "A budget for which trimContext throws: the newest unit does not fit, or the session is empty.",
		Doc: "`trimContext` throws `context budget cannot contain the smallest consistent message " +
			"unit` when the newest unit alone costs more than the budget, and `context budget " +
			"cannot be empty` when the session has no messages; the agent then fails instead of " +
			"trimming. The message is the runtime's, verbatim, with the budget and the newest " +
			"unit's cost. Example: a budget of 500 and a newest unit of 2,400 characters.",
	},
	{
		Code: CodeTruncatedRecord, Severity: SeverityError, Fix: FixSometimes,
		Scope:   ScopeLine,
		Summary: "A record cut short by an interrupted append: the runtime refuses the whole file.",
		Doc: "The runtime appends each message with `appendFile(path, JSON.stringify(m) + \"\\n\")`: no " +
			"lock, no fsync. When the writer is killed mid-append, or the disk fills (ENOSPC, EFBIG), " +
			"the record stops short and its line break is never written, so the next append continues " +
			"on the same line. The message says whether another record follows on the line and at " +
			"which byte. The unsafe fix deletes the partial record (its bytes are lost) and keeps the " +
			"complete records after it; it is not offered when a kept record is longer than one " +
			"524,288-byte write, since it could then be the head of one record glued to the tail of " +
			"another (spliced). Example: `{\"role\":\"tool\",\"content\":\"par` followed by " +
			"`{\"role\":\"user\",\"content\":\"next\"}` on one line.",
	},
	{
		Code: CodeInterleavedRecord, Severity: SeverityError, Fix: FixSometimes,
		Scope:   ScopeLine,
		Summary: "Pieces of appends made at the same time, interleaved at node's 524,288-byte write boundaries: the runtime refuses the whole file.",
		Doc: "node's `fs.promises.appendFile` writes a string of more than 512 KiB as successive " +
			"`write()` calls of exactly 524,288 bytes (`kWriteFileMaxChunkSize`), the last one " +
			"shorter and ending with the line break. Each lands whole at the end of the file " +
			"(O_APPEND), but two writers appending at once can interleave between them: the line " +
			"holding the first piece of a large record then holds another writer's append at byte " +
			"524,288 (or a multiple), and the rest of the large record begins a later line. The " +
			"finding is on both: the line where another append begins inside a record, and the line " +
			"that begins in the middle of one (naming where it likely began). When exactly one way of " +
			"pairing the pieces makes every record valid, the fix rejoins them losing nothing; when " +
			"several do, sessionls does not guess: it lists the ways (each an unsafe fix a person can " +
			"choose) and fixes nothing. Example: a 1.2 MB tool result whose first 524,288 bytes are " +
			"followed, on the same line, by a short user message.",
	},
	{
		Code: CodeZeroFilled, Severity: SeverityError, Fix: FixSometimes,
		Scope:   ScopeLine,
		Summary: "A run of NUL bytes where the file system lost data: the runtime refuses the whole file.",
		Doc: "After a crash, a file can read as NUL bytes where its data never reached the disk: " +
			"ext4's delayed allocation extends the file before writing its blocks, so the last " +
			"appends read as zeros (a NUL tail), and a lost or zeroed block in the middle of a file " +
			"reads as a run of NULs (often 4,096 bytes) that can swallow line breaks and merge " +
			"records. A run of eight or more NULs, or NULs ending a line, is taken for lost data " +
			"(no writer of text emits them). Escaping the NULs as `\\u0000` would make the damaged " +
			"record load as if it were whole, so that is never done: the only fix is unsafe, and " +
			"deletes the run with the partial records it cut, keeping every complete record; the " +
			"summary says how many bytes and records are lost. Example: a last line of 3,000 NUL " +
			"bytes after a power loss.",
	},
	{
		Code: CodeSplitRecord, Severity: SeverityError, Fix: FixSometimes,
		Scope:   ScopeLine,
		Summary: "A record split over several lines by raw line breaks in a string: the runtime refuses the whole file.",
		Doc: "`JSON.stringify` escapes a line break in a string, so the runtime's own writer never " +
			"splits a record; a writer that builds its JSON by hand and emits a raw line break does, " +
			"and the runtime, splitting the file on `\\n`, sees pieces that each fail `JSON.parse`. " +
			"The first piece ends inside a string; the next begins in the middle of the record. The " +
			"safe fix joins the pieces with `\\n` escapes when that gives exactly one valid record " +
			"(the string then holds what the writer meant). Example: " +
			"`{\"role\":\"user\",\"content\":\"line one` and `line two\"}` on consecutive lines.",
	},
	{
		Code: CodeCodexResumeRefused, Severity: SeverityError, Fix: FixNone,
		Scope:   ScopeDialect,
		Summary: "A Codex CLI rollout that codex refuses to resume as a whole.",
		Doc: "Codex reads a rollout with `tokio::fs::read_to_string` and then its lines " +
			"(`RolloutRecorder::load_rollout_items`): a file that is not valid UTF-8 anywhere fails " +
			"the read, a file of only whitespace fails with `empty session file`, and a file with " +
			"no `session_meta` line it can read fails with `failed to parse thread ID from rollout " +
			"file` (`get_rollout_history`). `codex resume` then refuses the session, whatever its " +
			"other lines hold. Example: a rollout whose first line, its `session_meta`, was cut " +
			"short by a crash.",
	},
	{
		Code: CodeCodexSkippedLine, Severity: SeverityWarning, Fix: FixNone,
		Scope:   ScopeDialect,
		Summary: "A Codex CLI rollout line that codex's loader skips: its item is lost on resume.",
		Doc: "Codex skips, without a word to the user, every line that `serde_json` cannot parse " +
			"or cannot read as a `RolloutLine` (`{timestamp, type, payload}`, `type` one of " +
			"`session_meta`, `response_item`, `compacted`, `turn_context`, `event_msg`, the " +
			"payload of that type's shape). Besides lines that `JSON.parse` also rejects (reported " +
			"as `invalid-json` and the damage codes), that is JSON nested more than 127 levels " +
			"(serde_json's recursion limit), a lone UTF-16 surrogate escape, a number beyond a " +
			"double's range, an unknown item type or a payload missing a member its type needs. A " +
			"skipped `response_item` is missing from the history the model is sent on resume. " +
			"Example: `{\"timestamp\":\"…\",\"type\":\"response_item\",\"payload\":{\"type\":" +
			"\"function_call\",\"name\":\"shell\",\"arguments\":\"{}\"}}` (no `call_id`).",
	},
	{
		Code: CodeCodexCompaction, Severity: SeverityInfo, Fix: FixNone,
		Scope:   ScopeDialect,
		Summary: "Where a Codex CLI session was compacted: the model is sent a summary instead of the history above.",
		Doc: "A `compacted` line records a compaction: on resume, codex replaces the history " +
			"before it with the line's `replacement_history` when it has one, or with the user's " +
			"messages and the summary otherwise. The finding says how many messages above are " +
			"no longer sent and what takes their place. Example: `compacted: 48 messages above " +
			"(212,340 chars) are replaced by a summary of 1,904 chars`.",
	},
	{
		Code: CodeBrokenParentChain, Severity: SeverityError, Fix: FixSometimes,
		Scope:   ScopeDialect,
		Summary: "A Claude Code record whose parentUuid names no record in the file: resuming loses every message before it.",
		Doc: "Claude Code (dialect `claude-code`) links its records by `parentUuid`, and `--resume` " +
			"rebuilds the conversation by walking that chain back from the last message. A " +
			"`parentUuid` that names no record (a parent never written, lost to a crash, or " +
			"removed by hand) stops the walk there: the model is resumed without anything " +
			"before it, silently. The message says whether the record is on the conversation " +
			"Claude Code resumes or on a sidechain or abandoned branch. Which record was the " +
			"parent cannot be known; the unsafe fix guesses the record written just before " +
			"(Claude Code appends a conversation in order), so that what came before is " +
			"reached again. Example: a user record with " +
			"`\"parentUuid\":\"7f3a…\"` where no record has `\"uuid\":\"7f3a…\"`.",
	},
	{
		Code: CodeDuplicateUUID, Severity: SeverityWarning, Fix: FixNone,
		Scope:   ScopeDialect,
		Summary: "Two Claude Code records with the same uuid.",
		Doc: "Every Claude Code record has its own `uuid`, which children name as their " +
			"`parentUuid`. A second record with the same uuid makes those links ambiguous: " +
			"which of the two the loader follows is not documented. Example: two lines both " +
			"with `\"uuid\":\"4b1e…\"`.",
	},
	{
		Code: CodeMalformedRecord, Severity: SeverityWarning, Fix: FixNone,
		Scope:   ScopeDialect,
		Summary: "A Claude Code record of a known type whose shape Claude Code does not write.",
		Doc: "A `user` or `assistant` record needs a string `uuid` and a `message` object whose " +
			"`role` is `user` or `assistant` and whose `content` is a string or an array of " +
			"content blocks, each an object with a string `type` (a `tool_use` with its string " +
			"`id`, a `tool_result` with its string `tool_use_id`). Claude Code's loader is closed " +
			"source and what it does with such a record is not documented: it may drop it or " +
			"fail to resume. Records of other types, including types this version does not " +
			"know, are not checked. Example: `{\"type\":\"user\",\"uuid\":\"…\",\"message\":" +
			"{\"role\":\"user\",\"content\":42}}`.",
	},
}

// Rules returns the rule of every code, in the stable order of Codes.
func Rules() []Rule {
	rs := registry // a copy: callers cannot change the table
	out := rs[:]
	for i := range out {
		out[i].Fixes = fixesOf(out[i].Code)
		out[i].In = maps.Clone(out[i].In)
	}
	return out
}

// RuleFor returns the rule of code and its index in Rules, or false when
// the code is unknown.
func RuleFor(code string) (Rule, int, bool) {
	for i := range registry {
		if registry[i].Code == code {
			r := registry[i]
			r.Fixes = fixesOf(code)
			r.In = maps.Clone(r.In)
			return r, i, true
		}
	}
	return Rule{}, -1, false
}

// Codes lists every code, in a stable order (for --help, docs and the SARIF
// ruleIndex).
func Codes() []string {
	out := make([]string, len(registry))
	for i := range registry {
		out[i] = registry[i].Code
	}
	return out
}

// scopeOf is the scope of code's findings (ScopeFile for a code missing
// from the registry: recomputed, never stale).
func scopeOf(code string) Scope {
	for i := range registry {
		if registry[i].Code == code {
			return registry[i].Scope
		}
	}
	return ScopeFile
}

// shapeFacts are the facts of a valid message that an edit must keep for
// a Document to patch its report rather than analyse again: the role and
// ids, which units and links are made of, and every fact a rule of line
// or unit scope reads.
func shapeFacts() Fact {
	f := FactRole | FactIDs
	for i := range registry {
		if sc := registry[i].Scope; sc == ScopeLine || sc == ScopeUnit {
			f |= registry[i].Reads
		}
	}
	return f
}

// severityOf is the severity of code's findings. It panics on a code
// missing from the registry: a programming error a test catches at once.
func severityOf(code string) Severity {
	for i := range registry {
		if registry[i].Code == code {
			return registry[i].Severity
		}
	}
	panic("analysis: finding code " + code + " is not in the rule registry")
}
