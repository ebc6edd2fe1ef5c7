package lsp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
	require.Equal(t, int64(0), h.budget(evil), "the defaults")
	require.Equal(t, int64(500), h.budget(good))
	msgs := h.client.shownMessages()
	require.Len(t, msgs, 1, "%+v", msgs)
	require.Contains(t, msgs[0].Message, "sessionls.toml:1:")
	require.Contains(t, msgs[0].Message, "nested more than 16 deep")
}
