package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	nodeoracle "github.com/sessionls/sessionls/internal/randjsonl/oracle"
)

// damageKnownFailures lists, by damage class, the criteria (letters of
// critNames) that check --fix does not meet yet, measured on main before
// issue 15's repair engine. A criterion failing that is not listed fails
// the test (a regression). One listed that passes fails it too for a class
// whose files the seed alone decides (damageDeterministic), so that the
// list shrinks as the engine learns: remove the letter. For the classes
// the kernel's scheduling shapes (which chunk lands first, when a kill
// lands) a small corpus may lack the file that shows a failure, so there
// (and with -short, which judges the shipped samples only, or another
// seed) a listed criterion that passes is only logged.
var damageKnownFailures = map[string]string{
	"efbig":        "",
	"enospc":       "",
	"interleave-2": "",
	// Three writers' chunks can make a line that is valid JSON out of
	// pieces of two records (one's first 524,288 bytes and a tail of
	// another's that closes it). Where only one pairing of the pieces is
	// valid, the pairing takes that line apart and rejoins every record;
	// where several are (ASCII content: any head fits any tail), sessionls
	// reports the run ambiguous and leaves its lines as they were, that
	// line too, which (c) then counts as undecided, not kept (see
	// judgeDamage). Seen in 9 of 60 "3 promises" files (gen.mjs seeds
	// 1-20), every one reported ambiguous.
	"interleave-3":   "",
	"kill":           "",
	"lost-assistant": "",
	"nul-hole":       "",
	"nul-tail":       "",
	"raw-newline":    "",
}

// damageSeed is the seed damageKnownFailures was measured with: with
// another (SESSIONLS_DAMAGE_SEED) the files differ, and a listed failure
// not seen is only logged.
const damageSeed = 1

// damageDeterministic: the classes whose files depend only on the seed.
var damageDeterministic = map[string]bool{
	"efbig": true, "enospc": true, "nul-hole": true, "nul-tail": true, "raw-newline": true,
}

// TestDamageCorpusFixes makes a fresh corpus of every damage class with
// node's own appendFile (testdata/damage/gen.mjs), repairs it with check
// --fix --unsafe-fixes (and, apart, with --fix alone) and judges every
// file with the node oracle against what its writers wrote: issue 15's
// "done when". The shipped samples (testdata/damage/samples) are judged
// too.
//
// SESSIONLS_DAMAGE_KEEP=DIR keeps up to two failing files of each class
// and criterion there, with their truth, both fixes and what failed.
// SESSIONLS_DAMAGE_FILES sets the files per class (default 2, and 3 of
// the small NUL classes, so that every variant is made; a large file takes
// gen.mjs a second or more), SESSIONLS_DAMAGE_SEED the seed.
func TestDamageCorpusFixes(t *testing.T) {
	node := nodeoracle.Node(t)
	perClass := 2
	if s := os.Getenv("SESSIONLS_DAMAGE_FILES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("SESSIONLS_DAMAGE_FILES: %v", err)
		}
		perClass = n
	}
	seed := damageSeed
	if s := os.Getenv("SESSIONLS_DAMAGE_SEED"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("SESSIONLS_DAMAGE_SEED: %v", err)
		}
		seed = n
	}
	if testing.Short() {
		perClass = 0 // the shipped samples only
	}

	var files []damageFile
	skipped := map[string]string{} // class: why gen.mjs made none
	if perClass > 0 {
		gen := t.TempDir()
		summary := generateDamage(t, node, gen, seed, fmt.Sprintf("all=%d", perClass),
			fmt.Sprintf("nul-tail=%d", max(perClass, 3)), fmt.Sprintf("nul-hole=%d", max(perClass, 3)))
		t.Logf("gen.mjs seed %d, %d per class:\n%s", seed, perClass, summary)
		files = loadDamage(t, gen, "")
		var made []struct{ Class, Skipped string }
		if err := json.Unmarshal([]byte(summary), &made); err != nil {
			t.Fatalf("gen.mjs summary: json.Unmarshal([]byte(summary), &made): %v", err)
		}
		for _, m := range made {
			if m.Skipped != "" {
				skipped[m.Class] = m.Skipped
				t.Logf("class %s skipped: %s", m.Class, m.Skipped)
			}
		}
	}
	samples := filepath.Join(filepath.Dir(damageScript()), "samples")
	files = append(files, loadDamage(t, samples, "samples/")...)
	if len(files) == 0 {
		t.Fatal("files is empty, want some")
	}
	for _, f := range files {
		if err := checkTruth(f); err != nil {
			t.Fatalf("checkTruth(f): %v", err)
		}
	}

	verdicts := fixAndJudge(t, node, files)
	if dir := os.Getenv("SESSIONLS_DAMAGE_KEEP"); dir != "" {
		keepFailures(t, dir, verdicts)
	}
	rows := damageTable(verdicts)
	t.Logf("check --fix --unsafe-fixes on %d damaged files:\n%s", len(files), formatDamageTable(rows))

	for _, r := range rows {
		known := damageKnownFailures[r.class]
		for _, c := range critOrder {
			failing := r.failing[c]
			switch {
			case len(failing) > 0 && !strings.Contains(known, c):
				t.Errorf("class %s fails %s in %d of %d files:\n\t%s", r.class, critNames[c], len(failing), r.files, strings.Join(firstN(failing, 5), "\n\t"))
			case len(failing) > 0:
				t.Logf("known failure: class %s, %s, %d of %d files:\n\t%s", r.class, critNames[c], len(failing), r.files, strings.Join(firstN(failing, 5), "\n\t"))
			case strings.Contains(known, c) && (!damageDeterministic[r.class] || perClass < 2 || seed != damageSeed):
				t.Logf("KNOWN FAILURE NOT SEEN: class %s meets %s on this corpus (remove %q from damageKnownFailures[%q] if it holds on larger ones)", r.class, critNames[c], c, r.class)
			case strings.Contains(known, c):
				t.Errorf("class %s now meets %s: remove %q from damageKnownFailures[%q]", r.class, critNames[c], c, r.class)
			}
		}
	}
	for class := range damageKnownFailures {
		seen := false
		for _, r := range rows {
			seen = seen || r.class == class
		}
		if !seen && perClass > 0 && skipped[class] == "" {
			t.Errorf("class %s made no file", class)
		}
	}
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], fmt.Sprintf("… and %d more files", len(s)-n))
}

// fixAndJudge copies every file twice, runs check --fix --unsafe-fixes on
// one copy and check --fix on the other (in-process, one run per
// directory, as a user would), asks check whether anything ambiguous
// remains, and judges both results with the node oracle.
func fixAndJudge(t *testing.T, node string, files []damageFile) []*damageVerdict {
	t.Helper()
	unsafeDir, safeDir := t.TempDir(), t.TempDir()
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = fmt.Sprintf("%03d-%s", i, filepath.Base(f.path))
		writeFile(t, filepath.Join(unsafeDir, names[i]), f.data, 0o644)
		writeFile(t, filepath.Join(safeDir, names[i]), f.data, 0o644)
	}
	// An ambiguity sessionls reports excuses a file from loading and from
	// recovering every record: a line of --fix's output, or a finding of
	// a check after it, that names the file and says "ambiguous" or
	// "ambiguity". A line of a run --fix's output names ("on lines 7–9")
	// that it questions ("line 8 parses, but a candidate takes it apart")
	// is undecided, which (c) does not count as kept (see judgeDamage).
	ambiguous := map[string]damageAmbiguity{}
	reported := func(n string, run [2]int, questioned []int, ok bool) {
		a := ambiguous[n]
		a.reported = true
		if ok {
			a.runs = append(a.runs, run)
			a.questioned = append(a.questioned, questioned...)
		}
		ambiguous[n] = a
	}
	says := func(s string) bool {
		s = strings.ToLower(s)
		return strings.Contains(s, "ambiguous") || strings.Contains(s, "ambiguit")
	}
	for _, run := range [][]string{
		{"check", "--fix", "--unsafe-fixes", unsafeDir},
		{"check", "--fix", safeDir},
	} {
		r := sessionls(t, run...)
		if got := ([]int{ExitClean, ExitFindings}); !slices.Contains(got, r.code) {
			t.Fatalf("%v: stdout %s\nstderr %s: []int{ExitClean, ExitFindings} = %+v, want it to contain %v", run, r.stdout, r.stderr, got, r.code)
		}
		if run[2] != "--unsafe-fixes" {
			continue
		}
		for _, l := range strings.Split(r.stdout+r.stderr, "\n") {
			for _, n := range names {
				if says(l) && strings.Contains(l, n) {
					lines, questioned, ok := parseAmbiguity(l)
					reported(n, lines, questioned, ok)
				}
			}
		}
	}
	for _, f := range checkJSON(t, unsafeDir) {
		if says(f.Code + " " + f.Message) {
			reported(filepath.Base(f.File), [2]int{}, nil, false)
		}
	}

	var jobs []nodeoracle.Job
	for _, n := range names {
		jobs = append(jobs, nodeoracle.Job{Path: filepath.Join(unsafeDir, n)}, nodeoracle.Job{Path: filepath.Join(safeDir, n)})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*60e9)
	defer cancel()
	answers, err := nodeoracle.Batch(ctx, node, jobs)
	if err != nil {
		t.Fatalf("node oracle: %v", err)
	}

	var out []*damageVerdict
	for i, f := range files {
		unsafe := readFile(t, filepath.Join(unsafeDir, names[i]))
		safe := readFile(t, filepath.Join(safeDir, names[i]))
		v := judgeDamage(f, unsafe, answers[2*i], safe, answers[2*i+1], ambiguous[names[i]])
		v.unsafe, v.safe = unsafe, safe
		out = append(out, v)
	}
	return out
}

// keepFailures copies up to two failing files per class and criterion into
// dir: the damaged file, its truth, what each fix made of it and why it
// fails.
func keepFailures(t *testing.T, dir string, vs []*damageVerdict) {
	t.Helper()
	kept := map[string]int{}
	for _, v := range vs {
		want := false
		for c := range v.fails {
			key := v.file.truth.Class + "/" + c
			if kept[key] < 2 {
				kept[key]++
				want = true
			}
		}
		if !want {
			continue
		}
		base := filepath.Join(dir, strings.ReplaceAll(strings.TrimSuffix(v.file.name, ".jsonl"), "/", "-"))
		truth := readFile(t, strings.TrimSuffix(v.file.path, ".jsonl")+".truth.json")
		var why strings.Builder
		for _, c := range critOrder {
			for _, m := range v.fails[c] {
				fmt.Fprintf(&why, "%s: %s\n", critNames[c], m)
			}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatalf("os.MkdirAll(dir, 0o755): %v", err)
		}
		for suffix, data := range map[string][]byte{
			".jsonl":            v.file.data,
			".truth.json":       truth,
			".unsafe-fixed.txt": v.unsafe,
			".safe-fixed.txt":   v.safe,
			".why.txt":          []byte(why.String()),
		} {
			writeFile(t, base+suffix, data, 0o644)
		}
	}
}
