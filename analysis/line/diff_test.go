package line_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/internal/randjsonl"
	"github.com/sessionls/sessionls/internal/randjsonl/oracle"
	"github.com/sessionls/sessionls/internal/transcript"
)

var (
	diffSeed, diffLines = oracle.DiffFlags("TestDiffNode", "lines", 2000)
	diffPos             = flag.Bool("diff.pos", false, "TestDiffNode: fail when an invalid-json span does not start where V8's message says")
)

// TestDiffNode compares line.Parse with node's JSON.parse + the runtime's
// parseSessionMessage + JSON.stringify on thousands of random hostile lines,
// the demo sessions and a realistic transcript: verdict, role, cost, ids and
// toolCallId must all agree.
func TestDiffNode(t *testing.T) {
	node := oracle.Node(t)
	seeds := oracle.Seeds(*diffSeed, 1, 2, 3)
	var lines [][]byte
	for _, s := range seeds {
		r := rand.New(rand.NewPCG(s, 0xd1ff))
		for i := 0; i < *diffLines; i++ {
			lines = append(lines, randjsonl.Line(r))
		}
		// Lines of random files: mostly valid, with tool-call structure.
		for i := 0; i < *diffLines/40; i++ {
			lines = append(lines, bytes.Split(randjsonl.File(r, 40), []byte("\n"))...)
		}
	}
	lines = append(lines, oracle.DemoLines(t)...)
	lines = append(lines, bytes.Split(transcript.Session(300, 5), []byte("\n"))...)
	// Empty lines are skipped by the runtime and by the oracle.
	lines = slices.DeleteFunc(lines, func(l []byte) bool { return len(l) == 0 })

	want := oracle.AskLines(t, node, lines, 2*time.Minute)
	counts := map[string]int{}
	failures, posDiffs := 0, 0
	for i, w := range want {
		if w.Line != i+1 {
			t.Fatalf("oracle line %d numbered %d", i+1, w.Line)
		}
		counts[w.Verdict]++
		got := line.Parse(lines[i])
		diff := compare(got, w)
		if got.Verdict == line.InvalidJSON && w.Pos != nil && got.Span.StartCol != *w.Pos {
			// The spec asks for the first offending character, not for
			// V8's position, and the two differ by design for some errors
			// (V8 points at the end for an unterminated string); count
			// the differences, and fail on them only when asked.
			posDiffs++
			if *diffPos {
				diff += fmt.Sprintf("  error column: ours %d (%s), node %d (%s)\n", got.Span.StartCol, got.Reason, *w.Pos, w.Message)
			}
		}
		if diff != "" {
			failures++
			if failures <= 25 {
				t.Errorf("line %q:\n%s\n  ours: %s\n  node: %s", lines[i], diff, describe(got), describeOracle(w))
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d lines disagree with node", failures, len(lines))
	}
	// The generator must keep reaching every verdict, or this test proves
	// little.
	for _, v := range []string{"valid", "invalid-json", "invalid-record"} {
		if counts[v] < len(lines)/10 {
			t.Errorf("only %d %s lines of %d: the generator lost its mix", counts[v], v, len(lines))
		}
	}
	t.Logf("%d lines compared: %v; %d invalid-json lines where our column differs from V8's position (-diff.pos to list them)", len(lines), counts, posDiffs)
}

func compare(got line.Result, w oracle.Line) string {
	if got.Verdict.String() != w.Verdict {
		return fmt.Sprintf("  verdict: ours %s, node %s %s\n", got.Verdict, w.Verdict, w.Message)
	}
	if got.Width16 != w.Width {
		return fmt.Sprintf("  UTF-16 width: ours %d, node %d\n", got.Width16, w.Width)
	}
	if got.Verdict != line.Valid {
		return ""
	}
	var d string
	if got.Role.String() != w.Role {
		d += fmt.Sprintf("  role: ours %q, node %q\n", got.Role, w.Role)
	}
	if w.CostError != "" {
		d += fmt.Sprintf("  cost: ours %d, node cannot measure it: %s\n", got.Cost, w.CostError)
	} else if w.Cost == nil || got.Cost != *w.Cost {
		d += fmt.Sprintf("  cost: ours %d, node %v\n", got.Cost, deref(w.Cost))
	}
	if got.Role == line.RoleAssistant {
		ids := make([]string, len(got.Calls))
		for i, c := range got.Calls {
			ids[i] = c.ID
		}
		if !slices.Equal(ids, w.IDs) {
			d += fmt.Sprintf("  ids: ours %q, node %q\n", ids, w.IDs)
		}
	}
	if got.Role == line.RoleTool && got.ToolCallID != w.ToolCallID {
		d += fmt.Sprintf("  toolCallId: ours %q, node %q\n", got.ToolCallID, w.ToolCallID)
	}
	return d
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func describe(r line.Result) string {
	if r.Verdict != line.Valid {
		return fmt.Sprintf("%s (%s)", r.Verdict, r.Reason)
	}
	return fmt.Sprintf("valid %s cost %d", r.Role, r.Cost)
}

func describeOracle(w oracle.Line) string {
	if w.Verdict != "valid" {
		return w.Verdict
	}
	return fmt.Sprintf("valid %s cost %v", w.Role, deref(w.Cost))
}
