package codex

import (
	"maps"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect/shared"
)

// Codes are the finding codes this dialect reports, each with what it
// means for a Codex CLI rollout (the registry's summaries are the seed
// runtime's): the README's list of them is generated from it
// (tools/gendocs), and TestCodes checks that the corpus reports no other.
func Codes() map[string]string {
	const skipped = "codex skips the line when it resumes the session (serde_json cannot parse it), and its item is lost."
	codes := shared.DamageCodes(skipped)
	maps.Copy(codes, map[string]string{
		analysis.CodeCodexResumeRefused: "A rollout codex refuses to resume as a whole (not UTF-8, empty, no session_meta).",
		analysis.CodeCodexSkippedLine:   "A line codex's loader skips: its item is lost on resume.",
		analysis.CodeCodexCompaction:    "Where the session was compacted: the model is sent a summary instead of the history above.",
		analysis.CodeMissingToolResult:  "A function_call or custom_tool_call with no output of its call_id: a history sent as recorded is rejected (\"No tool output found for function call …\"); codex itself sends \"aborted\" in its place.",
		analysis.CodeOrphanToolResult:   "An output whose call_id no earlier call has: codex drops it on resume, and a history sent as recorded is rejected (\"No tool call found for … call_id …\").",
		analysis.CodeDuplicateCallID:    "A call_id used by an earlier call: its output answers whichever call the API pairs it with, and the other is left without one.",
		analysis.CodeBudgetCutoff:       "Where the character budget cuts the history a resume sends.",
		analysis.CodeBudgetExceeded:     "A budget the newest unit of the history does not fit in, or an empty history.",
	})
	return codes
}
