package fix_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/fix"
)

// interleave writes the records of several writers as node's appendFile
// would under O_APPEND, one write() at a time: each record (with its "\n")
// in writes of at most ChunkSize bytes, a writer's next record only after
// its last write, and the writers' writes in the order r picks.
func interleave(r *rand.Rand, writers [][]string) []byte {
	type state struct {
		recs  []string
		cur   string // what is left of the record being written
		begun bool
	}
	ws := make([]*state, len(writers))
	for i, w := range writers {
		ws[i] = &state{recs: w}
	}
	var out []byte
	for {
		var live []*state
		for _, w := range ws {
			if w.begun || len(w.recs) > 0 {
				live = append(live, w)
			}
		}
		if len(live) == 0 {
			return out
		}
		w := live[r.IntN(len(live))]
		if !w.begun {
			w.cur, w.recs, w.begun = w.recs[0]+"\n", w.recs[1:], true
		}
		n := min(len(w.cur), analysis.ChunkSize)
		out = append(out, w.cur[:n]...)
		w.cur = w.cur[n:]
		w.begun = w.cur != ""
	}
}

// contentOf is a string of about n bytes from alphabet.
func contentOf(r *rand.Rand, n int, alphabet []string) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// TestInterleavedWritersProperty: for random writers appending records
// small and large at once (simulated write by write, as node's appendFile
// and O_APPEND do), the safe fixes either rejoin every record byte for
// byte, each once, and the file loads, or report the run they cannot
// decide (leaving its lines as they were); outside those runs no line
// they leave is a record no writer wrote (a splice).
func TestInterleavedWritersProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 524288))
	ascii := []string{"a", "b", " ", "x", "\\n"}
	mixed := []string{"a", "é", "中", "😀", " ", "ß", "\\\"", "→"}
	decided, ambiguous, files := 0, 0, 0
	for k := range 16 {
		alphabet := mixed
		if k%4 == 3 {
			alphabet = ascii
		}
		var writers [][]string
		var all []string
		for w := range 2 + k%2 {
			var recs []string
			for i := range 2 + r.IntN(2) {
				id := fmt.Sprintf("w%d_%d", w, i)
				size := 50 + r.IntN(400)
				if r.IntN(2) == 0 {
					size = analysis.ChunkSize/2 + r.IntN(2*analysis.ChunkSize)
				}
				content, _ := json.Marshal(contentOf(r, size, alphabet))
				recs = append(recs,
					`{"role":"assistant","content":"c","toolCalls":[{"id":"`+id+`","name":"run","input":{}}]}`,
					`{"role":"tool","content":`+string(content)+`,"toolCallId":"`+id+`","isError":false}`)
			}
			writers = append(writers, recs)
			all = append(all, recs...)
		}
		data := interleave(r, writers)
		files++
		res := fix.FixAll(data, analysis.Options{}, false)
		want := map[string]int{}
		for _, rec := range all {
			want[rec]++
		}
		got := map[string]int{}
		for i, l := range strings.Split(strings.TrimSuffix(string(res.Data), "\n"), "\n") {
			if want[l] > 0 {
				got[l]++
				continue
			}
			switch {
			case inAmbiguity(res, i+1):
				// Undecided: left as it was (a splice there may parse),
				// and the file does not load.
			case analysis.Analyze([]byte(l), analysis.Options{}).Loads():
				t.Errorf("file %d: line %d, which loads, is no record a writer wrote (a splice): %.80q", k, i+1, l)
			default:
				t.Errorf("file %d: line %d is refused outside any ambiguity: %.80q", k, i+1, l)
			}
		}
		if len(res.Ambiguities) > 0 {
			ambiguous++
			// A person choosing among the candidates must tell them apart.
			for _, a := range res.Ambiguities {
				titles := map[string]bool{}
				for _, c := range a.Candidates {
					if titles[c.Title] {
						t.Errorf("file %d: two candidates of the run at line %d are titled %q", k, a.Line, c.Title)
					}
					titles[c.Title] = true
				}
			}
			continue
		}
		decided++
		if !res.Report.Loads() {
			t.Errorf("file %d: no ambiguity and the file does not load: %s", k, res.Report.LoadFailure().Message)
		}
		for rec, n := range want {
			if got[rec] != n {
				t.Errorf("file %d: a record (%d bytes) is kept %d times, written %d", k, len(rec), got[rec], n)
			}
		}
		if res.Lost != (fix.Loss{}) {
			t.Errorf("file %d: the safe fixes lost %+v", k, res.Lost)
		}
	}
	t.Logf("%d files: %d rejoined, %d ambiguous", files, decided, ambiguous)
	if decided < files/2 {
		t.Errorf("only %d of %d files decided: the property proves little", decided, files)
	}
}

// inAmbiguity reports whether line ln lies in one of the runs of lines
// FixAll left alone for their several possible pairings.
func inAmbiguity(res fix.Result, ln int) bool {
	for _, a := range res.Ambiguities {
		if ln >= a.Line && ln <= a.EndLine {
			return true
		}
	}
	return false
}
