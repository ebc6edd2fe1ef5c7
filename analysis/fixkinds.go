package analysis

// FixKind is one kind of repair of package analysis/fix, written once: its
// name, its safety, how a fix's title words it, and the rules whose
// findings it repairs. The fix package's Kind constants number this table
// (Kind k is FixKinds()[k-1]); fix.Fixable, fix.Kind's String and Safety,
// the titles of fixes and the Fixes of every Rule (sessionls rules, SARIF,
// the generated docs) are derived from it. Adding a kind of repair is one
// entry here, its constant in analysis/fix and the code that makes it.
type FixKind struct {
	// Name is the kind's name (fix.Kind.String), for logs and tests.
	Name string
	// Safe: the repair changes no message the runtime would load (see
	// Fix.Safe); otherwise it drops or invents data.
	Safe bool
	// Title is what the repair does, as a clause of a fix's title
	// ("remove the byte order mark"). Counted is the same for n of them
	// (a format with one %d), for a kind that repairs several things at
	// once: a fix that repairs one uses Title, when there is one.
	Title, Counted string
	// Lost says what an unsafe repair loses or invents; the title adds
	// it in parentheses.
	Lost string
	// Rules are the codes whose findings the kind repairs, each with the
	// line the rule's documentation lists the repair with (Rule.Fixes).
	Rules []FixDoc
	// Dialects name the dialects (analysis/dialect/...) that alone make
	// the repair: each words its fixes and decides which findings have
	// one (fix.Fixable, the runtime's, leaves their codes out). Empty for
	// the engine's own kinds.
	Dialects []string
}

// FixDoc is one line of a rule's list of fixes: the rule's code and what
// the repair does, in the rule's terms.
type FixDoc struct {
	Code, Doc string
}

// fixKinds is the fix table, in the order of package fix's Kind constants
// (append new kinds at the end) and of each rule's Fixes. It is never
// written; FixKinds hands out copies.
var fixKinds = [...]FixKind{
	{
		Name: "bom", Safe: true,
		Title: "remove the byte order mark",
		Rules: []FixDoc{{CodeInvalidJSON, "remove a byte order mark before a line's value"}},
	},
	{
		Name: "blank-line", Safe: true,
		Title: "delete the blank line",
		Rules: []FixDoc{{CodeInvalidJSON, "delete a line that holds only whitespace (spaces, tabs, `\\r`)"}},
	},
	{
		Name: "joined-records", Safe: true,
		Counted: "split the %d joined records onto their own lines",
		Rules:   []FixDoc{{CodeInvalidJSON, "split records joined on one line onto their own lines, each byte for byte"}},
	},
	{
		Name: "trailing-comma", Safe: true,
		Title: "remove the trailing comma", Counted: "remove %d trailing commas",
		Rules: []FixDoc{{CodeInvalidJSON, "remove a trailing comma before `}` or `]`"}},
	},
	{
		Name: "control-character", Safe: true,
		Title: "escape the raw control character in a string", Counted: "escape %d raw control characters in strings",
		Rules: []FixDoc{{CodeInvalidJSON, "escape a raw control character in a string as `JSON.stringify` writes it"}},
	},
	{
		Name:  "truncated-record",
		Title: "delete the truncated record", Lost: "the partial record is lost",
		Rules: []FixDoc{
			{CodeInvalidJSON, "delete a truncated record (an interrupted append), alone or before a complete record on its line"},
			{CodeTruncatedRecord, "delete the partial record, keeping every complete record on its line (each provably whole: written by one write() call)"},
		},
	},
	{
		Name:  "missing-is-error",
		Title: `add "isError":false`, Lost: "invents that the tool call did not fail",
		Rules: []FixDoc{{CodeInvalidRecord, "add `\"isError\":false` to a tool result without `isError`"}},
	},
	{
		Name:  "missing-tool-calls",
		Title: `add "toolCalls":[]`, Lost: "invents that the assistant called no tools",
		Rules: []FixDoc{{CodeInvalidRecord, "add `\"toolCalls\":[]` to an assistant message without `toolCalls`"}},
	},
	{
		Name:  "orphan-tool-result",
		Title: "delete the orphan tool result", Lost: "its content is lost",
		Rules: []FixDoc{{CodeOrphanToolResult, "delete the tool result's line (Claude Code transcripts: the `tool_result` block, or its record when it holds nothing else, the records naming it as parent then naming its parent)"}},
	},
	{
		Name: "split-record", Safe: true,
		Title: "join the record split over lines, writing each raw line break as \\n",
		Rules: []FixDoc{{CodeSplitRecord, "join the lines, writing each line break as the escape `\\n`, when the joined text is exactly one valid record"}},
	},
	{
		Name: "rejoin", Safe: true,
		Title: "rejoin the interleaved records, byte for byte",
		Rules: []FixDoc{{CodeInterleavedRecord, "rejoin the interleaved records, byte for byte, when the pieces determine one way (UTF-8 and JSON validity); each record goes on the line where its last piece was"}},
	},
	{
		Name:  "drop-fragment",
		Title: "delete the pieces of records that cannot be completed", Lost: "those pieces are lost",
		Rules: []FixDoc{{CodeInterleavedRecord, "the same, deleting pieces whose record cannot be completed (a head whose rest is lost, or a tail without its head)"}},
	},
	{
		Name:  "zero-filled",
		Title: "delete the NUL bytes and the partial records they cut", Lost: "the file system lost that data; the partial records are lost",
		Rules: []FixDoc{{CodeZeroFilled, "delete the NUL bytes and the partial records they destroyed, keeping every complete record"}},
	},
	{
		Name: "synthetic-result", Dialects: []string{"claude-code", "codex"},
		Title: "add a result for the tool call that never got one", Lost: "invents the call's result",
		Rules: []FixDoc{{CodeMissingToolResult, "Claude Code and Codex CLI sessions: add a result marked as an error (\"tool call interrupted; no result was recorded\") for the calls that never got one (Claude Code: one user record, which the record the conversation continues with then names as parent); the runtime's sessions have no fix"}},
	},
	{
		Name: "relink", Dialects: []string{"claude-code"},
		Title: "make parentUuid name the record written before it", Lost: "guesses the lost parent",
		Rules: []FixDoc{{CodeBrokenParentChain, "make `parentUuid` name the record written before it on its side (main conversation or sidechain), once no line JSON.parse refuses is left (a guess: the lost parent stays lost)"}},
	},
}

// FixKinds returns the fix table, in the order of package fix's Kind
// constants.
func FixKinds() []FixKind {
	ks := fixKinds // a copy: callers cannot change the table
	out := ks[:]
	for i := range out {
		out[i].Rules = append([]FixDoc(nil), out[i].Rules...)
		out[i].Dialects = append([]string(nil), out[i].Dialects...)
	}
	return out
}

// HasFixes reports whether one of the engine's kinds of repair (not a
// dialect's alone) repairs findings of code.
func HasFixes(code string) bool {
	for i := range fixKinds {
		if len(fixKinds[i].Dialects) > 0 {
			continue
		}
		for _, r := range fixKinds[i].Rules {
			if r.Code == code {
				return true
			}
		}
	}
	return false
}

// fixesOf lists the repairs of code's findings as its rule documents them,
// in the order of the fix table.
func fixesOf(code string) []Fix {
	var out []Fix
	for i := range fixKinds {
		for _, r := range fixKinds[i].Rules {
			if r.Code == code {
				out = append(out, Fix{Title: r.Doc, Safe: fixKinds[i].Safe})
			}
		}
	}
	return out
}
