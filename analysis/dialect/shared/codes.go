package shared

import "github.com/sessionls/sessionls/analysis"

// DamageCodes are the meanings of the codes the engine's JSON pass gives a
// damaged line, for a dialect's Codes; skipped says what the dialect's
// program does with such a line when it resumes the session. The map is
// the caller's to add its own codes to.
func DamageCodes(skipped string) map[string]string {
	return map[string]string{
		analysis.CodeInvalidJSON:       "A line JSON.parse rejects: " + skipped,
		analysis.CodeTruncatedRecord:   "A record cut short by an interrupted append (the writer was killed, the disk was full): " + skipped,
		analysis.CodeInterleavedRecord: "Pieces of appends made at the same time, interleaved: " + skipped,
		analysis.CodeZeroFilled:        "A run of NUL bytes where the file system lost data: " + skipped,
		analysis.CodeSplitRecord:       "A record split over several lines by raw line breaks in a string: " + skipped,
	}
}
