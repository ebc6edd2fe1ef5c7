package claude

import (
	"maps"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect/shared"
)

// Codes are the finding codes this dialect reports, each with what it
// means for a Claude Code transcript (the registry's summaries are the
// seed runtime's): the README's list of them is generated from it
// (tools/gendocs), and TestCodes checks that the corpus reports no other.
func Codes() map[string]string {
	const skipped = "Claude Code skips the line when it resumes the session, and the record it held is lost."
	codes := shared.DamageCodes(skipped)
	maps.Copy(codes, map[string]string{
		analysis.CodeBrokenParentChain: "A record whose parentUuid names no record in the file: resuming loses every message before it.",
		analysis.CodeDuplicateUUID:     "Two records with the same uuid.",
		analysis.CodeMalformedRecord:   "A record of a known type whose shape Claude Code does not write.",
		analysis.CodeMissingToolResult: "A tool_use with no tool_result in the next user message: the next request gets the API's 400 \"tool_use ids were found without tool_result blocks immediately after\".",
		analysis.CodeOrphanToolResult:  "A tool_result that answers no tool_use of the assistant message before it: the next request gets the API's 400 \"unexpected tool_use_id found in tool_result blocks\".",
		analysis.CodeDuplicateCallID:   "A tool_use id used twice: the API refuses the next request (\"tool_use ids must be unique\").",
		analysis.CodeBudgetCutoff:      "Where the character budget cuts the conversation Claude Code resumes.",
		analysis.CodeBudgetExceeded:    "A budget the newest unit of the conversation does not fit in, or an empty conversation.",
	})
	return codes
}
