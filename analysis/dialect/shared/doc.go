// Package shared holds what the dialects below analysis/dialect have in
// common: the meanings of the engine's damage codes, which every dialect
// reports of a line JSON.parse rejects. It sits below the dialects
// (cmd/sessionls/layout_test.go), so that each can import it; their JSON
// scanner is internal/jsonscan.
package shared
