// Package shared holds what the dialects below analysis/dialect have in
// common: the meanings of the engine's damage codes, which every dialect
// reports of a line JSON.parse rejects, and a scanner of JSON text that
// finds values' byte ranges without building them. It sits below the
// dialects (cmd/sessionls/layout_test.go), so that each can import it.
package shared
