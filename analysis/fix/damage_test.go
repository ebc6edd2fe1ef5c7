package fix_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/internal/randjsonl/oracle"
)

// damaged is one file of testdata/damage.mjs: the bytes node's appendFile
// and the damage left, the records the writers meant and which of them
// the damage destroyed.
type damaged struct {
	name    string
	data    []byte
	records []string
	lost    map[int]bool
}

// damagedFiles runs testdata/damage.mjs (node's own appendFile, concurrent
// writers, a writer killed by RLIMIT_FSIZE, NUL tails, a zeroed page, raw
// line breaks) and reads what it made.
func damagedFiles(t *testing.T) []damaged {
	t.Helper()
	node := oracle.Node(t)
	dir := t.TempDir()
	cmd := exec.Command(node, filepath.Join("testdata", "damage.mjs"), dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("damage.mjs: %v\n%s", err, out)
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(names) == 0 {
		t.Fatalf("damage.mjs made no files (%v)", err)
	}
	sort.Strings(names)
	var out []damaged
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		meta, err := os.ReadFile(strings.TrimSuffix(n, ".jsonl") + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Records []string
			Lost    []int
		}
		if err := json.Unmarshal(meta, &m); err != nil {
			t.Fatal(err)
		}
		d := damaged{name: filepath.Base(n), data: data, records: m.Records, lost: map[int]bool{}}
		for _, i := range m.Lost {
			d.lost[i] = true
		}
		out = append(out, d)
	}
	return out
}

// nodeLoads runs the runtime's loading (split on "\n", JSON.parse every
// line that is not empty) on each file, in node, and returns the names
// of those that load.
func nodeLoads(t *testing.T, files map[string][]byte) map[string]bool {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := `const fs = require("node:fs"); const dir = process.argv[1]; const ok = [];
for (const f of fs.readdirSync(dir)) { try { fs.readFileSync(dir + "/" + f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)); ok.push(f); } catch {} }
console.log(JSON.stringify(ok));`
	out, err := exec.Command(oracle.Node(t), "-e", script, dir).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var ok []string
	if err := json.Unmarshal(out, &ok); err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	for _, n := range ok {
		set[n] = true
	}
	return set
}

// TestRealDamage: on files node's appendFile wrote and real damage hurt,
// after --fix --unsafe-fixes every file loads (in node) unless the engine
// reported an ambiguity; every kept line is a record a writer meant, byte
// for byte (no splice, no alteration); every record the damage did not
// destroy is kept (unless ambiguous); the safe fixes alone never write a
// line that is not a meant record; and the loss is accounted.
func TestRealDamage(t *testing.T) {
	files := damagedFiles(t)
	fixed := map[string][]byte{}
	ambiguous := map[string]bool{}
	var kept, meant, unambiguous int
	for _, d := range files {
		t.Run(d.name, func(t *testing.T) {
			want := map[string]int{}
			for i, r := range d.records {
				want[r] = i
			}
			opts := analysis.Options{}
			rep := analysis.Analyze(d.data, opts)
			if rep.Loads() && !bytes.Contains(d.data, []byte{0}) {
				t.Logf("the damage left a file that loads")
			}
			// The safe fixes alone: every line they leave that loads is a
			// line of the input or a meant record.
			safe := fix.FixAll(d.data, opts, false)
			for i, l := range bytes.Split(safe.Data, []byte("\n")) {
				if len(l) == 0 || analysis.Analyze(l, opts).Loads() == false {
					continue
				}
				if _, ok := want[string(l)]; !ok && (safe.Origin == nil || safe.Origin[i] == 0) {
					t.Errorf("the safe fixes wrote line %d, which no writer wrote: %.120q", i+1, l)
				}
			}
			res := fix.FixAll(d.data, opts, true)
			fixed[d.name] = res.Data
			if len(res.Ambiguities) > 0 {
				ambiguous[d.name] = true
				for _, a := range res.Ambiguities {
					t.Logf("ambiguous: lines %d-%d, %d ways", a.Line, a.EndLine, a.Ways)
					if len(a.Candidates) == 0 {
						t.Errorf("an ambiguity without candidates")
					}
				}
			} else if !res.Report.Loads() {
				t.Errorf("after every fix the file does not load: %s", res.Report.LoadFailure().Message)
			}
			seen := map[int]bool{}
			for i, l := range bytes.Split(res.Data, []byte("\n")) {
				if len(l) == 0 || inAmbiguity(res, i+1) {
					continue // undecided: left as it was, and the file does not load
				}
				k, ok := want[string(l)]
				if !ok {
					if analysis.Analyze(l, opts).Loads() {
						t.Errorf("kept line %d is no record a writer wrote (spliced or altered): %.120q", i+1, l)
					}
					continue
				}
				seen[k] = true
			}
			for i := range d.records {
				switch {
				case d.lost[i]:
				case !seen[i] && !ambiguous[d.name]:
					t.Errorf("record %d (%d bytes), which the damage left whole, is lost", i, len(d.records[i]))
				}
				if !d.lost[i] {
					meant++
					if seen[i] {
						kept++
					}
				}
			}
			if !ambiguous[d.name] {
				unambiguous++
			}
			var lostBytes int64
			for i := range d.records {
				if d.lost[i] && !seen[i] {
					lostBytes++
				}
			}
			if lostBytes > 0 && res.Lost.Bytes == 0 {
				t.Errorf("records were lost and the fix accounts no loss")
			}
			t.Logf("%d of %d records kept; lost %d bytes, %d records", len(seen), len(d.records), res.Lost.Bytes, res.Lost.Records)
		})
	}
	loads := nodeLoads(t, fixed)
	for name := range fixed {
		if !ambiguous[name] && !loads[name] {
			t.Errorf("%s: node does not load the fixed file", name)
		}
	}
	t.Logf("%d files (%d unambiguous); %d of %d records the damage left whole are kept", len(files), unambiguous, kept, meant)
}
