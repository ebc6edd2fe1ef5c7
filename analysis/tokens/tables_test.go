package tokens

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/sessionls/sessionls/internal/randjsonl/oracle"
)

// TestClassTable checks the table's shape and a few classes everyone
// knows; TestTablesMatchNode checks every code point against node.
func TestClassTable(t *testing.T) {
	if classIndex[0] != 0 {
		t.Fatalf("the first block of code points is block %d, classAt's ASCII path reads block 0", classIndex[0])
	}
	if len(classIndex) != 0x110000>>classBlockShift || len(classBlocks)%(1<<classBlockShift) != 0 {
		t.Fatalf("table of %d blocks and %d bytes of classes", len(classIndex), len(classBlocks))
	}
	cases := []struct {
		r    rune
		want uint8
	}{
		{'a', classL | classW}, {'A', classL | classU}, {'0', classN}, {' ', classS}, {'\n', classS},
		{'\'', 0}, {0x7F, 0}, {0xFEFF, classS}, {0x85, 0}, {0x17F, classL | classW},
		{0x01C5, classL | classU}, {0x02B0, classL | classU | classW}, {0x4E2D, classL | classU | classW},
		{0x0301, classU | classW}, {0x0661, classN}, {0x3000, classS}, {0x16D40, classL | classU | classW},
		{0x10FFFF, 0}, {0x110000, 0}, {-1, 0},
	}
	for _, c := range cases {
		if got := classOf(c.r); got != c.want {
			t.Errorf("classOf(%U) = %05b, want %05b", c.r, got, c.want)
		}
	}
}

// TestTablesMatchNode is the drift test of classes_table.go: node's regex
// engine, asked again for every code point, must agree with the table
// (after a node upgrade, `go generate ./analysis/tokens` rewrites it).
func TestTablesMatchNode(t *testing.T) {
	node := oracle.Node(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "gen/classes.mjs").Output()
	if err != nil {
		t.Fatalf("node gen/classes.mjs: %v", err)
	}
	if len(out) != 0x110000 {
		t.Fatalf("node wrote %d classes, want one per code point (%d)", len(out), 0x110000)
	}
	differ := 0
	for r, want := range out {
		if got := classOf(rune(r)); got != want {
			differ++
			if differ <= 20 {
				t.Errorf("%U: the table says %05b, node %05b", r, got, want)
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d code points classed differently from node: run go generate ./analysis/tokens", differ)
	}
	t.Logf("%d code points classed as node's regex engine does", len(out))
}

// TestRanksMatchJSTiktoken is the drift test of the ranks tables and of the
// patterns the pre-tokenizers implement: js-tiktoken's, read again.
func TestRanksMatchJSTiktoken(t *testing.T) {
	node := oracle.Node(t)
	dir := oracle.TokensDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := func(args ...string) []byte {
		t.Helper()
		cmd := exec.CommandContext(ctx, node, append([]string{"gen/ranks.mjs"}, args...)...)
		cmd.Env = append(cmd.Environ(), "SESSIONLS_TOKENS_ORACLE="+dir)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node gen/ranks.mjs %v: %v", args, err)
		}
		return out
	}
	for _, c := range []struct {
		enc, pattern, raw string
	}{
		{"o200k_base", o200kPattern, o200kRanks},
		{"cl100k_base", cl100kPattern, cl100kRanks},
	} {
		if got := string(run(c.enc, "pattern")); got != c.pattern {
			t.Errorf("%s: js-tiktoken's pattern is now\n  %s\nthe pre-tokenizer implements\n  %s", c.enc, got, c.pattern)
		}
		if string(run(c.enc)) != c.raw {
			t.Errorf("%s: js-tiktoken's ranks differ from %s.ranks: run go generate ./analysis/tokens", c.enc, c.enc)
		}
		tab, err := loadRanks(c.raw)
		if err != nil {
			t.Fatal(err)
		}
		for r := range tab.off {
			if got := tab.rank(tab.token(uint32(r))); got != uint32(r) {
				t.Fatalf("%s: token %q of rank %d is found at rank %d", c.enc, tab.token(uint32(r)), r, got)
			}
		}
		for b := range 256 {
			if tab.rank(string([]byte{byte(b)})) == noRank {
				t.Errorf("%s: byte %#x is no token (piece relies on every byte being one)", c.enc, b)
			}
		}
		t.Logf("%s: %d ranks equal to js-tiktoken's", c.enc, len(tab.off))
	}
}
