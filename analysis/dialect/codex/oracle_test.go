package codex

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/randjsonl"
)

// serdeOracle builds testdata/dialects/codex/serde-oracle, a program that
// prints serde_json's verdict on each line of its input, offline against
// Debian's librust-serde-json-dev (apt-get install librust-serde-json-dev);
// it skips the test when cargo or that package is missing.
func serdeOracle(t *testing.T) string {
	t.Helper()
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		t.Skip("cargo not installed: skipping the serde_json differential test")
	}
	const registry = "/usr/share/cargo/registry"
	if m, _ := filepath.Glob(filepath.Join(registry, "serde_json-1.*")); len(m) == 0 {
		t.Skip("Debian's librust-serde-json-dev is not installed: skipping the serde_json differential test")
	}
	dir := t.TempDir()
	src := filepath.Join(corpus, "serde-oracle")
	for _, f := range []string{"Cargo.toml", "src/main.rs"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(dir, "cargo-home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "[source.crates-io]\nreplace-with = \"debian\"\n[source.debian]\ndirectory = \"" + registry + "\"\n[net]\noffline = true\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cargo, "build", "--offline", "--release", "--quiet")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CARGO_HOME="+home, "CARGO_TARGET_DIR="+filepath.Join(dir, "target"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the serde_json oracle: %v\n%s", err, out)
	}
	return filepath.Join(dir, "target", "release", "serde-oracle")
}

// TestSerdeOracle: for random hostile lines (internal/randjsonl, which
// reaches every escape, number shape, nesting and damage), the lines codex
// skips for their JSON are exactly those serde_json refuses: JSON.parse's
// refusals (package line, exact to node) and serdeRejects' three
// differences.
func TestSerdeOracle(t *testing.T) {
	bin := serdeOracle(t)
	r := rand.New(rand.NewPCG(21, 4))
	var ls [][]byte
	nest := func(n int) []byte { return []byte(strings.Repeat("[", n) + "1" + strings.Repeat("]", n)) }
	for _, n := range []int{1, 126, 127, 128, 129, 400} {
		ls = append(ls, nest(n), []byte(`{"a":`+string(nest(n))+`}`))
	}
	for _, s := range []string{`"\ud83e\udd16"`, `"\ud83e"`, `"\udd16"`, `"\ud83e\u0041"`, `"a\\ud83e"`, `[1e308]`, `[1e309]`, `[-1e400]`, `[1e-400]`,
		`[123456789012345678901234567890]`, `["\u0000"]`, "[1,]", "\ufeff{}", `{"a":1,"a":2}`} {
		ls = append(ls, []byte(s))
	}
	for len(ls) < 20000 {
		l := randjsonl.Line(r)
		l = bytes.TrimSuffix(l, []byte{'\r'}) // str::lines drops it; package line takes it for whitespace
		if !utf8.Valid(l) || bytes.ContainsAny(l, "\r\n") || len(bytes.TrimSpace(l)) == 0 {
			continue // codex refuses a file that is not UTF-8; CR and LF end lines
		}
		ls = append(ls, l)
	}
	for _, name := range []string{"clean.jsonl", "skipped-lines.jsonl", "split-record.jsonl", "cut-tail.jsonl"} {
		for _, l := range bytes.Split(readCorpus(t, name), []byte{'\n'}) {
			if len(bytes.TrimSpace(l)) > 0 {
				ls = append(ls, l)
			}
		}
	}
	in := bytes.Join(ls, []byte{'\n'})
	cmd := exec.Command(bin)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	verdicts := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(verdicts) != len(ls) {
		t.Fatalf("%d verdicts for %d lines", len(verdicts), len(ls))
	}
	bad, serdeOnly := 0, 0
	for i, l := range ls {
		v := verdicts[i]
		if v == "skip" {
			t.Fatalf("line %d is whitespace only: %q", i, l)
		}
		json := line.Parse(l).Verdict != line.InvalidJSON
		why := ""
		if json {
			why = serdeRejects(l)
		}
		ours := json && why == ""
		if ours != (v == "ok") {
			bad++
			if bad <= 10 {
				t.Errorf("%.120q: serde_json %q; sessionls: JSON.parse accepts %v, serde rejects %q", l, v, json, why)
			}
		}
		if json && why != "" {
			serdeOnly++
		}
	}
	if serdeOnly == 0 {
		t.Error("no line JSON.parse accepts and serde_json refuses: the test did not reach serdeRejects")
	}
	t.Logf("%d lines, %d refused by serde_json alone, %d disagreements", len(ls), serdeOnly, bad)
}
