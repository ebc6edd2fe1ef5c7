package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
	nodeoracle "github.com/sessionls/sessionls/internal/randjsonl/oracle"
)

// ambiguousWriter appends, with node's own fs.promises.appendFile, an
// assistant record and then its two tool results at once (two appends in
// flight, as the runtime fires them): each result is one ASCII string
// over 512 KiB, so node writes it in 524,288-byte pieces and the other
// append's pieces land between them. Both results are the same length and
// ASCII, so the pieces pair validly either way: the file is ambiguous. It
// tries again until the appends did interleave, and prints the records.
const ambiguousWriter = `
import { appendFile, readFile, rm } from "node:fs/promises";
const path = process.argv[2];
const asst = {role: "assistant", content: "c", toolCalls: [{id: "a", name: "ls", input: {}}, {id: "b", name: "ls", input: {}}]};
const res = (id, ch) => ({role: "tool", content: ch.repeat(700000), toolCallId: id, isError: false});
const recs = [asst, res("a", "a"), res("b", "b")].map((m) => JSON.stringify(m));
for (let attempt = 0; attempt < 50; attempt++) {
  await rm(path, {force: true});
  await appendFile(path, recs[0] + "\n");
  await Promise.all([appendFile(path, recs[1] + "\n"), appendFile(path, recs[2] + "\n")]);
  const lines = (await readFile(path, "utf8")).split("\n");
  if (lines[1] !== recs[1] && lines[1] !== recs[2]) {
    // No process.exit: it would cut the write to a pipe short.
    process.stdout.write(JSON.stringify(recs));
    break;
  }
  if (attempt === 49) {
    process.stderr.write("the appends never interleaved");
    process.exitCode = 1;
  }
}
`

// writeAmbiguous makes the file with node and returns its path and the
// records the writers wrote.
func writeAmbiguous(t *testing.T, node string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "w.mjs")
	writeFile(t, script, []byte(ambiguousWriter), 0o644)
	path := filepath.Join(dir, "s.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, node, script, path)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node writer: %v\n%s", err, stderr.Bytes())
	}
	var decoded []string
	if err := json.Unmarshal(out, &decoded); err != nil || len(decoded) != 3 {
		t.Fatalf("node writer printed %.100q: %v", out, err)
	}
	return path, decoded
}

// TestPickAmbiguousCandidate: for a file made ambiguous by node's
// appendFile, check (plain, --diff; text, json, sarif) lists its
// candidates numbered LINE:N in the file's own lines, with distinct
// titles, and shows a chosen one's diff; check --fix --unsafe-fixes --pick
// LINE:N writes exactly candidate N (the engine's, then the other fixes),
// which the node oracle loads, with the record outside the run byte for
// byte and every piece kept. With a blank line before the run (a safe
// fix that moves the lines after it), LINE is still the file's own.
func TestPickAmbiguousCandidate(t *testing.T) {
	node := nodeoracle.Node(t)
	path, recs := writeAmbiguous(t, node)
	written := readFile(t, path)
	listRE := regexp.MustCompile(`(?m)^sessionls:   --pick (\d+:\d+)  (.*)$`)
	for _, prefix := range []string{"", " \t\n"} {
		t.Run(strconv.Quote(prefix), func(t *testing.T) {
			orig := append([]byte(prefix), written...)
			path := filepath.Join(t.TempDir(), "s.jsonl")
			writeFile(t, path, orig, 0o644)
			_, ambs := fix.Plan(orig, analysis.Analyze(orig, analysis.Options{}).Findings)
			if len(ambs) != 1 || len(ambs[0].Candidates) < 2 {
				t.Fatalf("%d ambiguities, want 1 with at least 2 candidates", len(ambs))
			}
			a := ambs[0]
			if want := 2 + strings.Count(prefix, "\n"); a.Line != want {
				t.Fatalf("the run is at line %d, want %d", a.Line, want)
			}
			var wantList []string
			for k, c := range a.Candidates {
				wantList = append(wantList, strconv.Itoa(a.Line)+":"+strconv.Itoa(k+1)+"  "+c.Title)
			}
			for _, args := range [][]string{{"check", path}, {"check", "--diff", "--unsafe-fixes", path}, {"check", "--diff", path}} {
				r := sessionls(t, args...)
				var got []string
				for _, m := range listRE.FindAllStringSubmatch(r.stderr, -1) {
					got = append(got, m[1]+"  "+m[2])
				}
				if strings.Join(got, "\n") != strings.Join(wantList, "\n") {
					t.Errorf("%v listed\n%s\nwant\n%s", args, strings.Join(got, "\n"), strings.Join(wantList, "\n"))
				}
			}
			titles := map[string]bool{}
			for _, c := range a.Candidates {
				if titles[c.Title] {
					t.Errorf("two candidates are titled %q", c.Title)
				}
				titles[c.Title] = true
			}
			// json: the candidates on the run's first finding; sarif: one
			// more fix each, unsafe, with its pick.
			var js []struct {
				Line       int
				Code       string
				Candidates []struct{ Pick, Title string }
			}
			if err := json.Unmarshal([]byte(sessionls(t, "check", "--format", "json", path).stdout), &js); err != nil {
				t.Fatal(err)
			}
			nj := 0
			for _, f := range js {
				for k, c := range f.Candidates {
					nj++
					if f.Line != a.Line || f.Code != analysis.CodeInterleavedRecord || c.Pick != strconv.Itoa(a.Line)+":"+strconv.Itoa(k+1) || c.Title != a.Candidates[k].Title {
						t.Errorf("json candidate %+v on line %d (%s)", c, f.Line, f.Code)
					}
				}
			}
			if nj != len(a.Candidates) {
				t.Errorf("json lists %d candidates, want %d", nj, len(a.Candidates))
			}
			var sarif struct {
				Runs []struct {
					Results []struct {
						Fixes []struct {
							Properties struct{ Safety, Pick string }
						}
					}
				}
			}
			if err := json.Unmarshal([]byte(sessionls(t, "check", "--format", "sarif", path).stdout), &sarif); err != nil {
				t.Fatal(err)
			}
			ns := 0
			for _, r := range sarif.Runs[0].Results {
				for _, f := range r.Fixes {
					if f.Properties.Pick != "" {
						ns++
						if f.Properties.Safety != "unsafe" {
							t.Errorf("sarif candidate %s is %s", f.Properties.Pick, f.Properties.Safety)
						}
					}
				}
			}
			if ns != len(a.Candidates) {
				t.Errorf("sarif has %d candidate fixes, want %d", ns, len(a.Candidates))
			}

			for k, c := range a.Candidates {
				sel := strconv.Itoa(a.Line) + ":" + strconv.Itoa(k+1)
				// Candidate k, then every other fix, as --fix --unsafe-fixes.
				want := fix.FixAll(fix.Apply(orig, []fix.Fix{c}), analysis.Options{}, true).Data

				d := sessionls(t, "check", "--diff", "--unsafe-fixes", "--pick", sel, path)
				if d.code != 1 || !strings.Contains(d.stdout, "@@") {
					t.Errorf("--diff --pick %s: exit %d, diff %.200q", sel, d.code, d.stdout)
				}
				cp := filepath.Join(t.TempDir(), "s.jsonl")
				writeFile(t, cp, orig, 0o644)
				f := sessionls(t, "check", "--fix", "--unsafe-fixes", "--pick", sel, cp)
				if f.code != 0 {
					t.Errorf("--fix --pick %s: exit %d\n%s%s", sel, f.code, f.stdout, f.stderr)
				}
				got := readFile(t, cp)
				if !bytes.Equal(got, want) {
					t.Fatalf("--fix --pick %s wrote %d bytes, not candidate %d (%d bytes)", sel, len(got), k+1, len(want))
				}
				// The record outside the run byte for byte, every piece
				// kept: the same bytes as the writers', only moved.
				lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
				if len(lines) != 3 || lines[0] != recs[0] {
					t.Errorf("--pick %s: %d lines, the assistant record changed", sel, len(lines))
				}
				if len(got) != len(written) {
					t.Errorf("--pick %s: %d bytes, the writers wrote %d", sel, len(got), len(written))
				}
				ans, err := nodeoracle.Batch(context.Background(), node, []nodeoracle.Job{{Path: cp}})
				if err != nil {
					t.Fatal(err)
				}
				if !ans[0].Budget.Loads {
					t.Errorf("--pick %s: node does not load the result: %s", sel, ans[0].Budget.Error)
				}
			}
			// One of the candidates gives back what the writers wrote: the
			// assistant, then its two results in either order (the two
			// appends race; which one's pieces come first is the kernel's
			// choice, and under load it is either).
			rights := []string{
				recs[0] + "\n" + recs[1] + "\n" + recs[2] + "\n",
				recs[0] + "\n" + recs[2] + "\n" + recs[1] + "\n",
			}
			found := false
			for _, c := range a.Candidates {
				got := string(fix.FixAll(fix.Apply(orig, []fix.Fix{c}), analysis.Options{}, true).Data)
				found = found || slices.Contains(rights, got)
			}
			if !found {
				t.Error("no candidate gives back the records the writers wrote")
			}
		})
	}
}

// TestPickRefused: --pick that names no candidate writes nothing (exit 2,
// saying why), and --pick without --unsafe-fixes or on a directory is a
// usage error.
func TestPickRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	body := "{\"role\":\"user\",\"content\":\"x\"},\n"
	writeFile(t, p, []byte(body), 0o644)
	tests := []struct {
		args []string
		code int
		say  string
	}{
		{[]string{"--fix", "--pick", "1:1", p}, 2, "needs --unsafe-fixes"},
		{[]string{"--fix", "--unsafe-fixes", "--pick", "1:1", dir}, 2, "exactly one file"},
		{[]string{"--fix", "--unsafe-fixes", "--pick", "x", p}, 2, "invalid --pick"},
		{[]string{"--fix", "--unsafe-fixes", "--pick", "1:1", p}, 2, "no ambiguous run"},
	}
	for _, tc := range tests {
		r := sessionls(t, append([]string{"check"}, tc.args...)...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.say) {
			t.Errorf("check %v: exit %d, stderr %q; want exit %d saying %q", tc.args, r.code, r.stderr, tc.code, tc.say)
		}
		if got, _ := os.ReadFile(p); string(got) != body {
			t.Errorf("check %v wrote the file", tc.args)
		}
	}
}
