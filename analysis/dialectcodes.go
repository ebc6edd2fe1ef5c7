package analysis

// Codes of the Codex CLI dialect (analysis/dialect/codex; issue 21), for
// what its loader does that the seed runtime has no word for. Pairing
// (orphan-tool-result, missing-tool-result, duplicate-call-id) and line
// damage reuse the engine's codes.
const (
	CodeCodexResumeRefused = "codex-resume-refused" // codex refuses to resume the whole file
	CodeCodexSkippedLine   = "codex-skipped-line"   // codex's loader skips the line
	CodeCodexCompaction    = "codex-compaction"     // the history was compacted here
)
