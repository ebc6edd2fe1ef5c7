package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis/fix"
	nodeoracle "github.com/sessionls/sessionls/internal/randjsonl/oracle"
)

// The damage corpus (testdata/damage/gen.mjs) and how a repaired file is
// judged against what its writers wrote.

// damageRecord is one append a writer made, as gen.mjs logged it.
type damageRecord struct {
	Stream int    `json:"stream"`
	Append int    `json:"append"`
	Text   string `json:"text"`    // the record's line, JSON.stringify's
	Wrote  string `json:"written"` // what a faulty writer put instead
	Failed string `json:"failed"`  // the error the append got
	// State: intact, recoverable, lost or absent (see gen.mjs).
	State string `json:"state"`
}

// damageTruth is a file's .truth.json.
type damageTruth struct {
	Class    string          `json:"class"`
	Variant  string          `json:"variant"`
	Happened json.RawMessage `json:"happened"`
	Records  []damageRecord  `json:"records"`
}

// damageFile is one corpus file with its truth.
type damageFile struct {
	name  string // as shown in reports: samples/<file> or <file>
	path  string // the damaged file
	data  []byte
	truth damageTruth
	// ways is how many ways the pieces of its interleaved records pair
	// into valid records (up to 3; 0 when no record is in pieces): two or
	// more, and the file is ambiguous.
	ways int
}

// damageScript is testdata/damage/gen.mjs, found beside the oracle.
func damageScript() string {
	return filepath.Join(filepath.Dir(nodeoracle.Script()), "..", "damage", "gen.mjs")
}

// generateDamage runs gen.mjs into dir and returns what it printed.
func generateDamage(t *testing.T, node, dir string, seed int, specs ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*60e9)
	defer cancel()
	args := append([]string{damageScript(), dir, fmt.Sprint(seed)}, specs...)
	cmd := exec.CommandContext(ctx, node, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node gen.mjs %v: %v\n%s", specs, err, stderr.Bytes())
	}
	return string(out)
}

// loadDamage reads every <name>.jsonl of dir with its <name>.truth.json.
func loadDamage(t *testing.T, dir, prefix string) []damageFile {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var out []damageFile
	for _, p := range paths {
		data := readFile(t, p)
		tb, err := os.ReadFile(strings.TrimSuffix(p, ".jsonl") + ".truth.json")
		if err != nil {
			t.Fatalf("%s has no truth: %v", p, err)
		}
		var tr damageTruth
		if err := json.Unmarshal(tb, &tr); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		f := damageFile{name: prefix + filepath.Base(p), path: p, data: data, truth: tr}
		pieces, err := splitPieces(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(pieces) > 0 {
			f.ways = pairings(pieces, 3)
			if f.ways == 0 {
				t.Fatalf("%s: the writers' own pairing of the interleaved pieces is not found valid", f.name)
			}
		}
		out = append(out, f)
	}
	return out
}

// physLines splits data into its physical lines (without '\n'), numbered
// from 1; a last line without '\n' counts.
func physLines(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	ls := bytes.Split(data, []byte{'\n'})
	if len(ls[len(ls)-1]) == 0 {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// checkTruth verifies gen.mjs's claim about which records are intact
// against the file itself: a record is intact exactly when it is a whole
// physical line of the damaged file (as many times as it was written).
func checkTruth(f damageFile) error {
	lines := map[string]int{}
	for _, l := range physLines(f.data) {
		lines[string(l)]++
	}
	for _, r := range f.truth.Records {
		whole := r.Wrote == "" && lines[r.Text] > 0
		if whole != (r.State == "intact") {
			return fmt.Errorf("%s: truth says record %d.%d is %s, but it is%s a line of the file", f.name, r.Stream, r.Append, r.State, map[bool]string{true: "", false: " not"}[whole])
		}
		// What was written is in the file in node's write() pieces for a
		// record whose bytes are all there, and not for one lost.
		written := []byte(r.Text + "\n")
		if r.Wrote != "" {
			written = []byte(r.Wrote + "\n")
		}
		all := true
		for i := 0; i < len(written); i += damageChunk {
			all = all && bytes.Contains(f.data, written[i:min(len(written), i+damageChunk)])
		}
		switch {
		case r.State == "recoverable" && !all:
			return fmt.Errorf("%s: truth says record %d.%d is recoverable, but a piece of it is not in the file", f.name, r.Stream, r.Append)
		case (r.State == "lost" || r.State == "absent") && bytes.Contains(f.data, written):
			return fmt.Errorf("%s: truth says record %d.%d is %s, but it is in the file whole", f.name, r.Stream, r.Append, r.State)
		}
	}
	return nil
}

// damageChunk is node's kWriteFileMaxChunkSize: appendFile writes a string
// over 512 KiB in write() calls of this many bytes.
const damageChunk = 512 << 10

// The criteria a repaired file is judged by, as the "done when"
// states them.
const (
	critLoads     = "a"
	critIntact    = "b"
	critSpliced   = "c"
	critDropped   = "d"
	critSafe      = "e"
	critRecovered = "f"
)

var critNames = map[string]string{
	critLoads:     "(a) loads after --fix --unsafe-fixes unless reported ambiguous",
	critIntact:    "(b) every intact record kept byte for byte",
	critSpliced:   "(c) no kept record differs from a record a writer wrote",
	critDropped:   "(d) no intact record dropped",
	critSafe:      "(e) the safe fix changes no record's content",
	critRecovered: "(f) every recoverable record back unless reported ambiguous",
}

var critOrder = []string{critLoads, critIntact, critSpliced, critDropped, critSafe, critRecovered}

// damageVerdict is how one file fared.
type damageVerdict struct {
	file         damageFile
	unsafe, safe []byte // the file after each fix
	ambiguous    bool
	loads        bool
	// counts
	intact, recoverable, recovered, spliced, altered, dropped, safeChanged int
	// undecided counts the valid lines left as they were inside a reported
	// ambiguous run that no writer wrote as they are (see judgeDamage): no
	// failure.
	undecided int
	// orphaned counts intact tool results deleted as orphans because their
	// assistant never landed (see orphanOfAbsent): no failure.
	orphaned int
	// failures, by criterion: what went wrong, worded for the reader
	fails map[string][]string
}

func (v *damageVerdict) fail(crit, format string, args ...any) {
	if v.fails == nil {
		v.fails = map[string][]string{}
	}
	v.fails[crit] = append(v.fails[crit], fmt.Sprintf(format, args...))
}

// show abbreviates a line for a message.
func show(b string) string {
	const n = 100
	if len(b) <= n {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%q… (%d bytes)", b[:n], len(b))
}

// validLines returns the lines the oracle accepts, by line number.
func validLines(data []byte, verdicts []nodeoracle.Line) map[int]string {
	ls := physLines(data)
	out := map[int]string{}
	for _, v := range verdicts {
		if v.Verdict == "valid" {
			out[v.Line] = string(ls[v.Line-1])
		}
	}
	return out
}

// damageAmbiguity is what sessionls said of a file's ambiguities: whether
// it reported one, and, from the messages of --fix's output (in the lines
// of the file after --fix --unsafe-fixes), the runs of lines (first, last)
// and the lines of them it questioned (lines that parse but a candidate
// takes apart).
type damageAmbiguity struct {
	reported   bool
	runs       [][2]int
	questioned []int
}

// undecided reports whether line n lies in one of the runs and the report
// questioned it.
func (a damageAmbiguity) undecided(n int) bool {
	for _, r := range a.runs {
		if n >= r[0] && n <= r[1] && slices.Contains(a.questioned, n) {
			return true
		}
	}
	return false
}

// ambiguousRun matches where an ambiguity message names its lines ("on
// line 7", "on lines 7–9"), questionedLines where it names the lines it
// questions ("line 8 parses, but", "lines 8, 10 and 12 parse, but").
var (
	ambiguousRun    = regexp.MustCompile(`on lines? (\d+)(?:–(\d+))?`)
	questionedLines = regexp.MustCompile(`; lines? ([\d, and]+) parses?, but`)
	number          = regexp.MustCompile(`\d+`)
)

// parseAmbiguity returns the run of lines an ambiguity message names and
// the lines of it the message questions.
func parseAmbiguity(msg string) (run [2]int, questioned []int, ok bool) {
	m := ambiguousRun.FindStringSubmatch(msg)
	if m == nil {
		return run, nil, false
	}
	first, err := strconv.Atoi(m[1])
	if err != nil {
		return run, nil, false
	}
	last := first
	if m[2] != "" {
		if last, err = strconv.Atoi(m[2]); err != nil {
			return run, nil, false
		}
	}
	if q := questionedLines.FindStringSubmatch(msg); q != nil {
		for _, d := range number.FindAllString(q[1], -1) {
			n, err := strconv.Atoi(d)
			if err != nil {
				return run, nil, false
			}
			questioned = append(questioned, n)
		}
	}
	return [2]int{first, last}, questioned, true
}

// judgeDamage judges one file: unsafe is its content after --fix
// --unsafe-fixes and uv the oracle's answer on it; safe and sv the same
// after --fix; amb what sessionls said of its ambiguities.
func judgeDamage(f damageFile, unsafe []byte, uv nodeoracle.File, safe []byte, sv nodeoracle.File, amb damageAmbiguity) *damageVerdict {
	ambiguous := amb.reported
	v := &damageVerdict{file: f, ambiguous: ambiguous, loads: uv.Budget.Loads}
	written := map[string]int{}
	for _, r := range f.truth.Records {
		written[r.Text]++
	}
	// An ambiguity is interleaved pieces that pair into valid records more
	// than one way: claimed where they pair one way, it is a recovery
	// missed; where they pair several ways and nobody says so, the reader
	// should know why nothing was rejoined.
	hint := ""
	switch {
	case ambiguous && f.ways < 2:
		v.fail(critRecovered, "reported ambiguous, but the interleaved pieces pair into valid records %d way(s)", f.ways)
	case !ambiguous && f.ways >= 2:
		hint = fmt.Sprintf(" (its interleaved pieces pair into valid records %s ways: an ambiguity sessionls does not report)", map[bool]string{true: "3 or more", false: "2"}[f.ways > 2])
	}
	if !v.loads && !ambiguous {
		v.fail(critLoads, "does not load after the fix: %s (line %d)%s", uv.Budget.Error, uv.Budget.Line, hint)
	}

	// (c) every valid line kept is a record some writer wrote, and no
	// record is kept more often than it was written. A line of several
	// writes that the fix left as it was, inside a run sessionls reported
	// ambiguous and questioned there, in a file whose pieces truly pair
	// more than one way, is undecided, not kept: some ways of pairing take
	// it apart (it may be a splice, or a writer's record), sessionls does
	// not guess, says so, and the file does not load until a person picks
	// a way.
	before := map[string]bool{}
	for _, l := range physLines(f.data) {
		before[string(l)] = true
	}
	kept := map[string]int{}
	valid := validLines(unsafe, uv.Lines)
	nums := make([]int, 0, len(valid))
	for n := range valid {
		nums = append(nums, n)
	}
	slices.Sort(nums)
	for _, n := range nums {
		l := valid[n]
		if written[l] == 0 && len(l) >= damageChunk && before[l] && amb.undecided(n) && f.ways >= 2 {
			v.undecided++
			continue
		}
		kept[l]++
		switch {
		case written[l] == 0:
			v.spliced++
			v.fail(critSpliced, "kept line %d is no record a writer wrote (spliced or altered): %s", n, show(l))
		case kept[l] > written[l]:
			v.spliced++
			v.fail(critSpliced, "kept line %d repeats a record written %d time(s): %s", n, written[l], show(l))
		}
	}

	// (b), (d): intact records kept, byte for byte; (f) recoverable ones
	// back.
	left := maps(kept)
	all := string(unsafe)
	for _, r := range f.truth.Records {
		switch r.State {
		case "intact":
			v.intact++
			if left[r.Text] > 0 {
				left[r.Text]--
				continue
			}
			// Missing: altered if the file still holds its start, else dropped.
			head := r.Text[:min(len(r.Text)-1, 64)]
			if strings.Contains(all, head) {
				v.altered++
				v.fail(critIntact, "intact record %d.%d (%s) is no longer a line of its own, unchanged", r.Stream, r.Append, show(r.Text))
			} else if orphanOfAbsent(f.truth.Records, r) {
				// Its assistant never landed (no byte of it is in the
				// file): the result is an orphan nothing in the file can
				// declare, and deleting it is the documented unsafe fix,
				// as for any orphan. Which random crash leaves that is
				// chance, so the class sees it now and then.
				v.orphaned++
			} else {
				v.dropped++
				v.fail(critDropped, "intact record %d.%d dropped%s: %s", r.Stream, r.Append, orphanHint(f.truth.Records, r, kept), show(r.Text))
			}
		case "recoverable":
			v.recoverable++
			if left[r.Text] > 0 {
				left[r.Text]--
				v.recovered++
			} else if !ambiguous {
				v.fail(critRecovered, "recoverable record %d.%d not back%s: %s", r.Stream, r.Append, hint, show(r.Text))
			}
		}
	}

	// (e) the safe fix: every line it leaves valid is a record a writer
	// wrote or a line that was already in the file, and no intact record
	// goes.
	sValid := validLines(safe, sv.Lines)
	sKept := map[string]int{}
	for n, l := range sValid {
		sKept[l]++
		if written[l] == 0 && !before[l] {
			v.safeChanged++
			v.fail(critSafe, "the safe fix made line %d, a record no writer wrote: %s", n, show(l))
		}
	}
	for _, r := range f.truth.Records {
		if r.State != "intact" {
			continue
		}
		if sKept[r.Text] > 0 {
			sKept[r.Text]--
			continue
		}
		v.safeChanged++
		v.fail(critSafe, "the safe fix lost intact record %d.%d: %s", r.Stream, r.Append, show(r.Text))
	}
	return v
}

// orphanHint says, for a dropped tool result whose assistant is not kept,
// that it was probably deleted as an orphan (its assistant lost to the
// damage): the reader then knows which fix dropped it.
func orphanHint(records []damageRecord, r damageRecord, kept map[string]int) string {
	a, ok := declaringAssistant(records, r, func(a damageRecord) bool { return kept[a.Text] == 0 })
	if !ok {
		return ""
	}
	return fmt.Sprintf(" (deleted as an orphan? its assistant %d.%d, %s in the damaged file, is not kept)", a.Stream, a.Append, a.State)
}

// orphanOfAbsent reports whether r is a tool result whose assistant is
// "absent" in the truth: no byte of it landed in the file.
func orphanOfAbsent(records []damageRecord, r damageRecord) bool {
	_, ok := declaringAssistant(records, r, func(a damageRecord) bool { return a.State == "absent" })
	return ok
}

// declaringAssistant returns, when r is a tool result, the first record in
// records for which ok holds that is an assistant declaring r's tool call.
func declaringAssistant(records []damageRecord, r damageRecord, ok func(damageRecord) bool) (damageRecord, bool) {
	var tr struct {
		Role       string `json:"role"`
		ToolCallID string `json:"toolCallId"`
	}
	if json.Unmarshal([]byte(r.Text), &tr) != nil || tr.Role != "tool" {
		return damageRecord{}, false
	}
	for _, a := range records {
		if !ok(a) {
			continue
		}
		var as struct {
			Role      string `json:"role"`
			ToolCalls []struct {
				ID string `json:"id"`
			} `json:"toolCalls"`
		}
		if json.Unmarshal([]byte(a.Text), &as) != nil || as.Role != "assistant" {
			continue
		}
		for _, c := range as.ToolCalls {
			if c.ID == tr.ToolCallID {
				return a, true
			}
		}
	}
	return damageRecord{}, false
}

func maps(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// damageRow is one class's line of the table.
type damageRow struct {
	class                                                           string
	files, ambiguous, trulyAmbiguous, loads, recovered, recoverable int
	intact, spliced, undecided, altered, dropped, safeChanged       int
	failing                                                         map[string][]string // criterion -> "file: what"
}

// damageTable sums the verdicts by class.
func damageTable(vs []*damageVerdict) []*damageRow {
	rows := map[string]*damageRow{}
	var order []string
	for _, v := range vs {
		c := v.file.truth.Class
		r := rows[c]
		if r == nil {
			r = &damageRow{class: c, failing: map[string][]string{}}
			rows[c] = r
			order = append(order, c)
		}
		r.files++
		if v.ambiguous {
			r.ambiguous++
		}
		if v.file.ways >= 2 {
			r.trulyAmbiguous++
		}
		if v.loads {
			r.loads++
		}
		r.recovered += v.recovered
		r.recoverable += v.recoverable
		r.intact += v.intact
		r.spliced += v.spliced
		r.undecided += v.undecided
		r.altered += v.altered
		r.dropped += v.dropped
		r.safeChanged += v.safeChanged
		for crit, msgs := range v.fails {
			r.failing[crit] = append(r.failing[crit], v.file.name+": "+msgs[0]+more(len(msgs)-1))
		}
	}
	slices.Sort(order)
	out := make([]*damageRow, len(order))
	for i, c := range order {
		out[i] = rows[c]
	}
	return out
}

func more(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (and %d more)", n)
}

// formatDamageTable prints the per-class table.
func formatDamageTable(rows []*damageRow) string {
	var b strings.Builder
	// ambig: files sessionls reported ambiguous / files whose pieces pair
	// validly more than one way.
	// undecided: valid lines no writer wrote as they are, left inside a
	// reported ambiguous run (not failures, see judgeDamage).
	fmt.Fprintf(&b, "%-15s %5s %7s %7s %17s %8s %9s %8s %8s %9s  %s\n",
		"class", "files", "ambig", "loads", "recovered/recov.", "spliced", "undecided", "dropped", "altered", "safe-chg", "failing criteria")
	for _, r := range rows {
		var crits []string
		for _, c := range critOrder {
			if len(r.failing[c]) > 0 {
				crits = append(crits, c)
			}
		}
		fmt.Fprintf(&b, "%-15s %5d %3d/%-3d %3d/%-3d %8d/%-8d %8d %9d %8d %8d %9d  %s\n",
			r.class, r.files, r.ambiguous, r.trulyAmbiguous, r.loads, r.files, r.recovered, r.recoverable,
			r.spliced, r.undecided, r.dropped, r.altered, r.safeChanged, strings.Join(crits, ""))
	}
	return b.String()
}

// TestJudgeDamageCatches: the judge fails each criterion on a file made to
// break it, and passes a file repaired as it should be.
func TestJudgeDamageCatches(t *testing.T) {
	a := `{"role":"user","content":"a"}`
	b := `{"role":"user","content":"b"}`
	c := `{"role":"tool","content":"c","toolCallId":"x","isError":false}`
	d := `{"role":"user","content":"d"}`
	splice := `{"role":"user","content":"ab"}`
	truth := damageTruth{Class: "t", Records: []damageRecord{
		{Text: a, State: "intact"}, {Text: b, State: "recoverable"}, {Text: c, State: "lost"}, {Text: d, State: "recoverable"},
	}}
	damaged := []byte(a + "\n" + `{"role":"user","content":"b` + "\n" + `"}` + "\n" + `{"role":"tool","con`)
	f := damageFile{name: "t.jsonl", data: damaged, truth: truth}
	// answer is what the oracle says of data when the lines listed are the
	// valid ones and loads says whether it loads.
	answer := func(data string, loads bool) nodeoracle.File {
		var out nodeoracle.File
		out.Budget.Loads = loads
		for i, l := range physLines([]byte(data)) {
			v := "invalid-json"
			if l[0] == '{' && l[len(l)-1] == '}' && string(l) != `"}` {
				v = "valid"
			}
			out.Lines = append(out.Lines, nodeoracle.Line{Line: i + 1, Verdict: v})
		}
		return out
	}
	judge := func(unsafe, safe string, loads, ambiguous bool) string {
		v := judgeDamage(f, []byte(unsafe), answer(unsafe, loads), []byte(safe), answer(safe, true), damageAmbiguity{reported: ambiguous})
		var crits []string
		for _, c := range critOrder {
			if len(v.fails[c]) > 0 {
				crits = append(crits, c)
			}
		}
		return strings.Join(crits, "")
	}
	good := a + "\n" + b + "\n" + d + "\n"
	one := f
	one.ways = 1
	if v := judgeDamage(one, []byte(good), answer(good, true), []byte(a+"\n"), answer(a+"\n", true), damageAmbiguity{reported: true}); len(v.fails[critRecovered]) == 0 {
		t.Error("an ambiguity claimed where the pieces pair one way passes (f)")
	}
	f.ways = 2 // the pieces of b and d pair two ways
	for _, tc := range []struct {
		name, unsafe, safe string
		loads, ambiguous   bool
		want               string
	}{
		{"repaired", good, a + "\n", true, false, ""},
		{"does not load", a + "\n" + `{"x` + "\n", a + "\n", false, false, "af"},
		{"ambiguous excuses loading and recovery", a + "\n" + `{"x` + "\n", a + "\n", false, true, ""},
		{"spliced kept", good + splice + "\n", a + "\n", true, false, "c"},
		{"a record kept twice", good + b + "\n", a + "\n", true, false, "c"},
		{"recoverable not back", a + "\n" + b + "\n", a + "\n", true, false, "f"},
		{"intact dropped", b + "\n" + d + "\n", a + "\n", true, false, "d"},
		{"intact altered", `{"role":"user","content":"a","isError":false}` + "\n" + b + "\n" + d + "\n", a + "\n", true, false, "bc"},
		{"safe fix invents a record", good, a + "\n" + splice + "\n", true, false, "e"},
		{"safe fix drops an intact record", good, "", true, false, "e"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := judge(tc.unsafe, tc.safe, tc.loads, tc.ambiguous); got != tc.want {
				t.Errorf("failing criteria %q, want %q", got, tc.want)
			}
		})
	}
}

// TestJudgeDamageUndecided: a valid line no writer wrote (the head of one
// large record and the tail of another) is undecided, not kept, only when
// the fix left it as it was, inside a run of lines sessionls reported
// ambiguous and questioned there, in a file whose pieces truly pair more
// than one way; anywhere else it fails (c).
func TestJudgeDamageUndecided(t *testing.T) {
	big := func(id, fill string) string {
		return `{"role":"tool","content":"` + strings.Repeat(fill, damageChunk) + `","toolCallId":"` + id + `","isError":false}`
	}
	a, c := big("a", "a"), big("c", "c")
	r := `{"role":"user","content":"r"}`
	aw, cw := a+"\n", c+"\n"
	// The writes: a's first, r, c's first, a's last, c's last.
	splice := cw[:damageChunk] + aw[damageChunk:len(aw)-1] // c's head, a's tail
	damaged := aw[:damageChunk] + r + "\n" + splice + "\n" + cw[damageChunk:]
	if !json.Valid([]byte(splice)) {
		t.Fatal("the splice does not parse")
	}
	f := damageFile{name: "t.jsonl", data: []byte(damaged), ways: 2, truth: damageTruth{Class: "t", Records: []damageRecord{
		{Text: a, State: "recoverable"}, {Text: r, State: "recoverable"}, {Text: c, State: "recoverable"},
	}}}
	answer := func(data string) nodeoracle.File {
		var out nodeoracle.File
		out.Budget.Loads = true
		for i, l := range physLines([]byte(data)) {
			v := "valid"
			if !json.Valid(l) {
				v, out.Budget.Loads = "invalid-json", false
			}
			out.Lines = append(out.Lines, nodeoracle.Line{Line: i + 1, Verdict: v})
		}
		return out
	}
	madeSplice := aw[:damageChunk] + cw[damageChunk:len(cw)-1] // a's head, c's tail: not a line of the input
	for _, tc := range []struct {
		name      string
		unsafe    string
		ways      int
		amb       damageAmbiguity
		want      string
		undecided int
	}{
		{"left as it was inside the reported run, questioned", damaged, 2, damageAmbiguity{true, [][2]int{{1, 3}}, []int{2}}, "", 1},
		{"not questioned", damaged, 2, damageAmbiguity{true, [][2]int{{1, 3}}, nil}, "c", 0},
		{"another line questioned", damaged, 2, damageAmbiguity{true, [][2]int{{1, 3}}, []int{3}}, "c", 0},
		{"the run does not hold it", damaged, 2, damageAmbiguity{true, [][2]int{{3, 3}}, []int{2}}, "c", 0},
		{"no run named", damaged, 2, damageAmbiguity{reported: true}, "c", 0},
		{"not reported", damaged, 2, damageAmbiguity{}, "acf", 0},
		{"the pieces pair one way", damaged, 1, damageAmbiguity{true, [][2]int{{1, 3}}, []int{2}}, "cf", 0},
		{"made by the fix", r + "\n" + madeSplice + "\n", 2, damageAmbiguity{true, [][2]int{{1, 2}}, []int{2}}, "c", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := f
			g.ways = tc.ways
			v := judgeDamage(g, []byte(tc.unsafe), answer(tc.unsafe), []byte(damaged), answer(damaged), tc.amb)
			var crits []string
			for _, c := range critOrder {
				if len(v.fails[c]) > 0 {
					crits = append(crits, c)
				}
			}
			if got := strings.Join(crits, ""); got != tc.want {
				t.Errorf("failing criteria %q, want %q: %v", got, tc.want, v.fails)
			}
			if v.undecided != tc.undecided {
				t.Errorf("undecided %d, want %d", v.undecided, tc.undecided)
			}
		})
	}
}

// TestParseAmbiguity: the runs of lines and the questioned lines read
// from ambiguity messages as fix words them.
func TestParseAmbiguity(t *testing.T) {
	for _, tc := range []struct {
		a          fix.Ambiguity
		run        [2]int
		questioned []int
	}{
		{fix.Ambiguity{Line: 7, EndLine: 9, Ways: 2, Questioned: []int{8}}, [2]int{7, 9}, []int{8}},
		{fix.Ambiguity{Line: 12, EndLine: 12, Ways: 3, More: true}, [2]int{12, 12}, nil},
		{fix.Ambiguity{Line: 2, EndLine: 20, Ways: 4, Questioned: []int{3, 10, 19}}, [2]int{2, 20}, []int{3, 10, 19}},
	} {
		msg := "sessionls: f.jsonl:" + strconv.Itoa(tc.a.Line) + ": " + tc.a.Message()
		run, q, ok := parseAmbiguity(msg)
		if !ok || run != tc.run || !slices.Equal(q, tc.questioned) {
			t.Errorf("parseAmbiguity(%q) = %v, %v, %v, want %v, %v", msg, run, q, ok, tc.run, tc.questioned)
		}
	}
	if _, _, ok := parseAmbiguity("1 run of interleaved pieces pair into valid records more than one way"); ok {
		t.Error("a summary naming no lines parsed as a run")
	}
}
