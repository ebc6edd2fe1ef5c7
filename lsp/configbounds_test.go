package lsp

import (
	"fmt"
	"strings"
	"testing"
)

// TestHostileConfigRefused: a cloned repository's configuration past the
// config package's bounds (9,999 nested inline tables with long keys: it
// took 4 GB to read) is refused with its file:line:col, once; the
// document under it gets the defaults, and the others are served as
// before.
func TestHostileConfigRefused(t *testing.T) {
	var b strings.Builder
	b.WriteString("x = ")
	for i := range 9999 {
		fmt.Fprintf(&b, "{%s%05d = ", strings.Repeat("k", 35), i)
	}
	b.WriteString("1" + strings.Repeat("}", 9999) + "\n")
	clean := readSession(t, "clean.jsonl")
	h := startConfigHarness(t, map[string]string{
		"evil/sessionls.toml": b.String(),
		"good/sessionls.toml": "budget = 500\n",
	}, true)

	evil := h.openDoc("evil/a.jsonl", "jsonl", clean)
	good := h.openDoc("good/b.jsonl", "jsonl", clean)
	if want, got := int64(0), h.budget(evil); got != want {
		t.Fatalf("the defaults: h.budget(evil) = %v, want %v", got, want)
	}
	if want, got := int64(500), h.budget(good); got != want {
		t.Fatalf("h.budget(good) = %v, want %v", got, want)
	}
	msgs := h.client.shownMessages()
	if len(msgs) != 1 {
		t.Fatalf("%+v: len(msgs) = %d, want %d: %+v", msgs, len(msgs), 1, msgs)
	}
	if !strings.Contains(msgs[0].Message, "sessionls.toml:1:") {
		t.Fatalf("msgs[0].Message = %q, want it to contain %q", msgs[0].Message, "sessionls.toml:1:")
	}
	if !strings.Contains(msgs[0].Message, "nested more than 16 deep") {
		t.Fatalf("msgs[0].Message = %q, want it to contain %q", msgs[0].Message, "nested more than 16 deep")
	}
}
