package analysis

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/sessionls/sessionls/analysis/line"
)

// Hand-built messages, so these tests do not depend on package line's parser.
// Each message costs 10 unless set otherwise; lines are set by seq.

func user() Message { return Message{Role: line.RoleUser, Cost: 10} }

func asst(ids ...string) Message {
	m := Message{Role: line.RoleAssistant, Cost: 10, Calls: []line.Call{}}
	for k, id := range ids {
		m.Calls = append(m.Calls, line.Call{ID: id, Name: "run", IDSpan: line.Span{Start: 10 * k, End: 10*k + 5, StartCol: 10 * k, EndCol: 10*k + 5}})
	}
	return m
}

func tool(id string) Message {
	return Message{Role: line.RoleTool, Cost: 10, ToolCallID: id, ToolCallIDSpan: line.Span{Start: 3, End: 8, StartCol: 3, EndCol: 8}}
}

func cost(m Message, c int64) Message { m.Cost = c; return m }

// seq numbers the messages' lines 1, 2, 3, ...
func seq(ms ...Message) []Message {
	for i := range ms {
		ms[i].Line = i + 1
	}
	return ms
}

// spans renders units as "first-last" pairs of message indexes.
func spans(units []Unit) []string {
	return render(units, func(u Unit) string { return fmt.Sprintf("%d-%d", u.First, u.Last) })
}

func TestBuildUnits(t *testing.T) {
	tests := []struct {
		name string
		msgs []Message
		want []string
	}{
		{"empty", nil, nil},
		{"seed example: assistant{a,b}, tool a, tool b is one unit of 3",
			seq(user(), asst("a", "b"), tool("a"), tool("b")), []string{"0-0", "1-3"}},
		{"single call pair", seq(asst("a"), tool("a")), []string{"0-1"}},
		{"assistant without calls is alone", seq(asst(), user()), []string{"0-0", "1-1"}},
		{"orphan tool is its own unit", seq(user(), tool("x"), tool("y")), []string{"0-0", "1-1", "2-2"}},
		{"tool before its assistant is an orphan", seq(tool("a"), asst("a")), []string{"0-0", "1-1"}},
		{"swept user message between assistant and result",
			seq(asst("a"), user(), tool("a")), []string{"0-2"}},
		{"interleaved calls: newest tool's assistant decides, the other is swept",
			seq(asst("a"), asst("b"), tool("a"), tool("b")), []string{"0-0", "1-3"}},
		{"interleaved the other way sweeps everything",
			seq(asst("a"), asst("b"), tool("b"), tool("a")), []string{"0-3"}},
		{"repeated ids across rounds: each round its own unit",
			seq(asst("a"), tool("a"), asst("a"), tool("a")), []string{"0-1", "2-3"}},
		{"repeated id: nearest earlier assistant wins",
			seq(asst("a"), asst("a"), tool("a")), []string{"0-0", "1-2"}},
		{"a tool answered early is a unit only if it is scanned first",
			seq(asst("a", "b"), tool("a"), user(), tool("b")), []string{"0-3"}},
		{"scan resumes before the assistant",
			seq(user(), asst("a"), tool("a"), asst("b"), user(), tool("b"), tool("zz")),
			[]string{"0-0", "1-2", "3-5", "6-6"}},
		{"two tools for one call",
			seq(asst("a"), tool("a"), tool("a")), []string{"0-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			units := BuildUnits(tt.msgs)
			if got := spans(units); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("units = %v, want %v", got, tt.want)
			}
			checkUnitSums(t, tt.msgs, units)
		})
	}
}

// checkUnitSums checks that units tile msgs and carry the right sums.
func checkUnitSums(t *testing.T, msgs []Message, units []Unit) {
	t.Helper()
	next := 0
	var total int64
	for _, m := range msgs {
		total += m.Cost
	}
	for k, u := range units {
		if u.First != next {
			t.Fatalf("unit %d starts at %d, want %d", k, u.First, next)
		}
		var c int64
		for j := u.First; j <= u.Last; j++ {
			c += msgs[j].Cost
		}
		if u.Chars != c {
			t.Fatalf("unit %d Chars = %d, want %d", k, u.Chars, c)
		}
		if u.FromNewest != total {
			t.Fatalf("unit %d FromNewest = %d, want %d", k, u.FromNewest, total)
		}
		if u.StartLine != msgs[u.First].Line || u.EndLine != msgs[u.Last].Line {
			t.Fatalf("unit %d lines %d-%d, want %d-%d", k, u.StartLine, u.EndLine, msgs[u.First].Line, msgs[u.Last].Line)
		}
		total -= c
		next = u.Last + 1
	}
	if next != len(msgs) {
		t.Fatalf("units cover %d messages, want %d", next, len(msgs))
	}
}

// seedUnits is trimContext's own quadratic grouping, as the seed writes it.
func seedUnits(msgs []Message) []string {
	var out []string
	for index := len(msgs) - 1; index >= 0; {
		m := msgs[index]
		if m.Role == line.RoleTool {
			ai := -1
			for i := index - 1; i >= 0 && ai < 0; i-- {
				if msgs[i].Role != line.RoleAssistant {
					continue
				}
				for _, c := range msgs[i].Calls {
					if c.ID == m.ToolCallID {
						ai = i
						break
					}
				}
			}
			if ai >= 0 {
				out = append([]string{fmt.Sprintf("%d-%d", ai, index)}, out...)
				index = ai - 1
				continue
			}
		}
		out = append([]string{fmt.Sprintf("%d-%d", index, index)}, out...)
		index--
	}
	return out
}

func TestBuildUnitsMatchesSeed(t *testing.T) {
	// Small random histories over few ids, so repeats and sweeps are common.
	ids := []string{"a", "b", "c"}
	state := uint64(12345)
	rnd := func(n int) int {
		state = state*6364136223846793005 + 1442695040888963407
		return int(state>>33) % n
	}
	for round := 0; round < 2000; round++ {
		n := rnd(12)
		msgs := make([]Message, n)
		for i := range msgs {
			switch rnd(3) {
			case 0:
				msgs[i] = user()
			case 1:
				var cs []string
				for range rnd(3) {
					cs = append(cs, ids[rnd(3)])
				}
				msgs[i] = asst(cs...)
			default:
				msgs[i] = tool(ids[rnd(3)])
			}
			msgs[i].Cost = int64(1 + rnd(50))
		}
		seq(msgs...)
		units := BuildUnits(msgs)
		if got, want := spans(units), seedUnits(msgs); !reflect.DeepEqual(got, want) {
			t.Fatalf("history %d: units %v, seed's trimContext gives %v", round, got, want)
		}
		checkUnitSums(t, msgs, units)
	}
}

func TestBuildUnitsLinear(t *testing.T) {
	// Cases that are quadratic in the runtime's algorithm: orphan tools each
	// scan the whole history backwards, and one assistant answered by
	// 100,000 results. They must finish quickly here; we check correctness.
	t.Run("100k orphan tools", func(t *testing.T) {
		msgs := make([]Message, 0, 200_000)
		for i := range 100_000 {
			msgs = append(msgs, user(), tool(fmt.Sprint("orphan", i)))
		}
		seq(msgs...)
		units := BuildUnits(msgs)
		if len(units) != len(msgs) {
			t.Fatalf("%d units, want %d (every message alone)", len(units), len(msgs))
		}
		checkUnitSums(t, msgs, units)
	})
	t.Run("200k messages in rounds", func(t *testing.T) {
		msgs := make([]Message, 0, 200_000)
		for i := 0; len(msgs) < 200_000; i++ {
			a, b := fmt.Sprint("x", i), fmt.Sprint("y", i)
			msgs = append(msgs, user(), asst(a, b), tool(a), tool(b))
		}
		seq(msgs...)
		units := BuildUnits(msgs)
		if len(units) != 100_000 {
			t.Fatalf("%d units, want 100000", len(units))
		}
		checkUnitSums(t, msgs, units)
	})
	t.Run("one assistant, 100k results", func(t *testing.T) {
		msgs := []Message{asst("a")}
		for range 100_000 {
			msgs = append(msgs, tool("a"))
		}
		seq(msgs...)
		units := BuildUnits(msgs)
		if got := spans(units); !reflect.DeepEqual(got, []string{"0-100000"}) {
			t.Fatalf("units = %v", got)
		}
	})
}

func TestCut(t *testing.T) {
	// Units from oldest to newest cost 30, 20, 100, 5, 10 (newest).
	msgs := seq(cost(user(), 30), cost(user(), 20), cost(user(), 100), cost(user(), 5), cost(user(), 10))
	units := BuildUnits(msgs)
	tests := []struct {
		name    string
		units   []Unit
		budget  int64
		want    Cutoff
		wantErr error
	}{
		{"newest alone exactly", units, 10, Cutoff{Budget: 10, FirstUnit: 4, FirstKeptLine: 5, KeptUnits: 1, KeptMessages: 1, KeptChars: 10}, nil},
		{"exact fit of two", units, 15, Cutoff{Budget: 15, FirstUnit: 3, FirstKeptLine: 4, KeptUnits: 2, KeptMessages: 2, KeptChars: 15}, nil},
		{"stops at the first unit that does not fit, never skips it", units, 114,
			Cutoff{Budget: 114, FirstUnit: 3, FirstKeptLine: 4, KeptUnits: 2, KeptMessages: 2, KeptChars: 15}, nil},
		{"everything", units, 1000, Cutoff{Budget: 1000, FirstUnit: 0, FirstKeptLine: 1, KeptUnits: 5, KeptMessages: 5, KeptChars: 165}, nil},
		{"exactly everything", units, 165, Cutoff{Budget: 165, FirstUnit: 0, FirstKeptLine: 1, KeptUnits: 5, KeptMessages: 5, KeptChars: 165}, nil},
		{"one short of everything", units, 164, Cutoff{Budget: 164, FirstUnit: 1, FirstKeptLine: 2, KeptUnits: 4, KeptMessages: 4, KeptChars: 135}, nil},
		{"newest unit too big", units, 9, Cutoff{}, ErrBudgetTooSmall},
		{"zero budget", units, 0, Cutoff{}, ErrBudgetTooSmall},
		{"negative budget", units, -5, Cutoff{}, ErrBudgetTooSmall},
		{"no messages", nil, 100, Cutoff{}, ErrEmptyContext},
		{"no messages, zero budget", nil, 0, Cutoff{}, ErrEmptyContext},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Cut(tt.units, msgs, tt.budget)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("Cut = %+v, want %+v", got, tt.want)
			}
		})
	}
	// The runtime's words, verbatim.
	if got := ErrBudgetTooSmall.Error(); got != "context budget cannot contain the smallest consistent message unit" {
		t.Errorf("ErrBudgetTooSmall = %q", got)
	}
	if got := ErrEmptyContext.Error(); got != "context budget cannot be empty" {
		t.Errorf("ErrEmptyContext = %q", got)
	}
}

func TestCutMultiMessageUnit(t *testing.T) {
	msgs := seq(user(), asst("a", "b"), tool("a"), tool("b"), user())
	units := BuildUnits(msgs)
	got, err := Cut(units, msgs, 40)
	if err != nil {
		t.Fatal(err)
	}
	want := Cutoff{Budget: 40, FirstUnit: 1, FirstKeptLine: 2, KeptUnits: 2, KeptMessages: 4, KeptChars: 40}
	if got != want {
		t.Fatalf("Cut = %+v, want %+v", got, want)
	}
	if _, err := Cut(units[:2], msgs, 29); !errors.Is(err, ErrBudgetTooSmall) {
		t.Fatalf("a 3-message unit of 30 chars under budget 29: err = %v, want ErrBudgetTooSmall", err)
	}
}
