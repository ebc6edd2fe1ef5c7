package cli

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	nodeoracle "github.com/sessionls/sessionls/internal/randjsonl/oracle"
)

// appenderScript appends records to a file, one fs.promises.appendFile
// each, as the agent runtime does (no lock, no fsync, a new open every
// time), until the stop file exists and at least min records are written;
// it prints how many it wrote. With broken set, every 7th record has a
// trailing comma, which check --fix repairs: so every --fix run that sees
// one rewrites the file.
const appenderScript = `
const fs = require("fs");
const [path, stop, min, broken] = [process.argv[1], process.argv[2], +process.argv[3], process.argv[4] === "1"];
(async () => {
  let i = 0;
  for (; i < min || !fs.existsSync(stop); i++) {
    const rec = JSON.stringify({ role: "user", content: "append " + i });
    const line = broken && i % 7 === 3 ? rec.slice(0, -1) + ",}" : rec;
    await fs.promises.appendFile(path, line + "\n");
    if (i % 4 === 0) await new Promise((r) => setTimeout(r, 1));
  }
  console.log(i);
})().catch((e) => { console.error(e); process.exit(1); });
`

// TestFixLosesNoAppend: node appends records with appendFile while
// check --fix (or trim -o onto its input) replaces the file again and
// again. Every record must be in the file afterwards, once, in order: the
// replacement carries over what was appended meanwhile and never replaces
// a file that changed otherwise.
func TestFixLosesNoAppend(t *testing.T) {
	node := nodeoracle.Node(t)
	// At least this many replacements run while node appends.
	const runsWanted = 25
	// A few MB of history before the appends start, so that one fix takes
	// a while and many appends land during it.
	var pad bytes.Buffer
	for i := 0; pad.Len() < 4<<20; i++ {
		fmt.Fprintf(&pad, "{\"role\":\"user\",\"content\":\"history %d %s\"}\n", i, strings.Repeat("x", 200))
	}
	tests := []struct {
		name   string
		broken bool
		args   func(path string) []string
	}{
		{"check --fix", true, func(p string) []string { return []string{"check", "--fix", "--format", "json", p} }},
		{"trim -o onto its input", false, func(p string) []string {
			return []string{"trim", "--max-chars", "1000000000000", "-o", p, p}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p, stop := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "stop")
			writeFile(t, p, pad.Bytes(), 0o644)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			flag := "0"
			if tc.broken {
				flag = "1"
			}
			cmd := exec.CommandContext(ctx, node, "-e", appenderScript, p, stop, "500", flag)
			var nodeOut, nodeErr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &nodeOut, &nodeErr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()

			runs, refusals := 0, 0
			var werr error
		loop:
			for {
				select {
				case werr = <-waited:
					break loop
				default:
				}
				if runs == runsWanted {
					writeFile(t, stop, nil, 0o644)
				}
				r := sessionls(t, tc.args(p)...)
				runs++
				switch r.code {
				case 0, 1:
				case 2:
					// Refused (the file was busy or changed): allowed, as
					// long as nothing was written.
					refusals++
				default:
					t.Fatalf("run %d exited %d: %s", runs, r.code, r.stderr)
				}
			}
			if werr != nil {
				t.Fatalf("node appender: %v\n%s", werr, nodeErr.String())
			}
			var n int
			if _, err := fmt.Sscan(nodeOut.String(), &n); err != nil {
				t.Fatalf("node appender printed %q: %v", nodeOut.String(), err)
			}
			if tc.broken {
				// The last broken records may have come after the last run.
				if r := sessionls(t, "check", "--fix", p); r.code != 0 {
					t.Fatalf("final --fix: exit %d\n%s%s", r.code, r.stdout, r.stderr)
				}
			}
			data := readFile(t, p)
			if !bytes.HasPrefix(data, pad.Bytes()) {
				t.Fatal("the history before the appends changed")
			}
			got := strings.Split(strings.TrimSuffix(string(data[pad.Len():]), "\n"), "\n")
			for i := range n {
				want := fmt.Sprintf(`{"role":"user","content":"append %d"}`, i)
				if i >= len(got) {
					t.Fatalf("only %d of %d appended records are in the file (%d runs)", len(got), n, runs)
				}
				if got[i] != want {
					t.Fatalf("appended record %d is %q, want %q: an append was lost or reordered (%d runs)", i, got[i], want, runs)
				}
			}
			if len(got) != n {
				t.Fatalf("%d appended records in the file, want %d", len(got), n)
			}
			t.Logf("%d runs (%d refused) while node appended %d records: none lost", runs, refusals, n)
			if runs-refusals < runsWanted/2 {
				t.Errorf("only %d runs replaced the file while node appended: the test proved little", runs-refusals)
			}
		})
	}
}
