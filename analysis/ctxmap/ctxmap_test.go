package ctxmap

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/line"
	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/randjsonl"
	"github.com/sessionls/sessionls/internal/transcript"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json")

// mapOf streams data through the engine with a Builder as its observer,
// as the CLI does, and builds the map.
func mapOf(t *testing.T, data []byte, opts analysis.Options, cfg Config) (*Map, *analysis.Report) {
	t.Helper()
	b := NewBuilder()
	opts.Observer = b
	opts.SkipMessages = true
	rep, err := analysis.AnalyzeReader(context.Background(), bytes.NewReader(data), opts)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Budget = max(opts.Budget, opts.TokenBudget)
	cfg.TokenBudget = opts.TokenBudget > 0
	cfg.ByTokens = cfg.ByTokens || opts.TokenBudget > 0
	m, err := b.Build(rep, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m, rep
}

// checkInvariants asserts what every map must satisfy against the report
// of the same file made with its messages (full).
func checkInvariants(t *testing.T, m *Map, full *analysis.Report, cfg Config) {
	t.Helper()
	size := func(chars, toks int64) int64 {
		if m.Measure == "tokens" {
			return toks
		}
		return chars
	}
	if m.Units != len(full.Units) || m.Messages != len(full.Messages) || m.TotalChars != full.TotalChars || m.TotalTokens != full.TotalTokens {
		t.Fatalf("totals: map %d units %d messages %d chars %d tokens; report %d %d %d %d",
			m.Units, m.Messages, m.TotalChars, m.TotalTokens, len(full.Units), len(full.Messages), full.TotalChars, full.TotalTokens)
	}
	// Bins: contiguous, in order, summing to the totals; every unit at or
	// over the threshold alone; none straddling the cutoff.
	var units, msgs int
	var chars, toks, at int64
	cut := -1
	if m.Budget != nil && m.Budget.Error == "" {
		cut = m.Budget.FirstUnit
	}
	target := cfg.TargetBins
	if target == 0 {
		target = DefaultTargetBins
	}
	if len(m.Bins) > 3*target+2 {
		t.Errorf("%d bins for a target of %d", len(m.Bins), target)
	}
	for i, b := range m.Bins {
		if b.FirstUnit != units || b.Units < 1 {
			t.Fatalf("bin %d starts at unit %d with %d units; want unit %d", i, b.FirstUnit, b.Units, units)
		}
		first, last := full.Units[b.FirstUnit], full.Units[b.FirstUnit+b.Units-1]
		if b.StartLine != first.StartLine || b.EndLine != last.EndLine || b.FromNewestChars != first.FromNewest || b.FromNewestTokens != first.TokensFromNewest {
			t.Errorf("bin %d: lines %d-%d from newest %d/%d; units say %d-%d %d/%d", i, b.StartLine, b.EndLine,
				b.FromNewestChars, b.FromNewestTokens, first.StartLine, last.EndLine, first.FromNewest, first.TokensFromNewest)
		}
		if b.At != at || b.Size != size(b.Chars, b.Tokens) {
			t.Errorf("bin %d: at %d size %d; want at %d size %d", i, b.At, b.Size, at, size(b.Chars, b.Tokens))
		}
		var pc, pt int64
		var pm int
		for _, p := range b.Parts {
			pc, pt, pm = pc+p.Chars, pt+p.Tokens, pm+p.Messages
		}
		if pc != b.Chars || pt != b.Tokens || pm != b.Messages {
			t.Errorf("bin %d: parts sum to %d chars %d tokens %d messages; bin has %d %d %d", i, pc, pt, pm, b.Chars, b.Tokens, b.Messages)
		}
		for k := b.FirstUnit; k < b.FirstUnit+b.Units; k++ {
			u := full.Units[k]
			if b.Units > 1 && m.Threshold > 0 && size(u.Chars, u.Tokens) >= m.Threshold {
				t.Errorf("unit %d (size %d, threshold %d) shares bin %d", k, size(u.Chars, u.Tokens), m.Threshold, i)
			}
			if wantKept := cut >= 0 && k >= cut; b.Kept != wantKept {
				t.Errorf("bin %d kept=%v holds unit %d (cutoff at unit %d)", i, b.Kept, k, cut)
			}
		}
		if m.Threshold == 0 && b.Units != 1 {
			t.Errorf("bin %d aggregates %d units with no threshold", i, b.Units)
		}
		units += b.Units
		msgs += b.Messages
		chars += b.Chars
		toks += b.Tokens
		at += b.Size
	}
	if units != m.Units || msgs != m.Messages || chars != m.TotalChars || toks != m.TotalTokens || at != m.Total {
		t.Errorf("bins sum to %d units %d messages %d chars %d tokens %d size; want %d %d %d %d %d",
			units, msgs, chars, toks, at, m.Units, m.Messages, m.TotalChars, m.TotalTokens, m.Total)
	}
	// The cutoff: the engine's, and the first kept bin starts there.
	if full.Cutoff != nil {
		if m.Budget == nil || m.Budget.FirstKeptLine != full.Cutoff.FirstKeptLine || m.Budget.KeptUnits != full.Cutoff.KeptUnits {
			t.Fatalf("budget %+v; engine's cutoff %+v", m.Budget, full.Cutoff)
		}
		found := false
		for _, b := range m.Bins {
			if b.Kept {
				if b.StartLine != full.Cutoff.FirstKeptLine || b.At != m.Budget.At {
					t.Errorf("first kept bin starts at line %d, at %d; cutoff at line %d, at %d", b.StartLine, b.At, full.Cutoff.FirstKeptLine, m.Budget.At)
				}
				found = true
				break
			}
		}
		if !found {
			t.Error("no kept bin")
		}
	}
	// Breakdown: roles sum to the totals, tools to the tool role; tool
	// rows are each tool result's answered call's name (the engine's
	// AnsweredCall).
	var rc, rt int64
	var rm int
	for _, r := range m.Roles {
		rc, rt, rm = rc+r.Chars, rt+r.Tokens, rm+r.Messages
	}
	if rc != m.TotalChars || rt != m.TotalTokens || rm != m.Messages {
		t.Errorf("roles sum to %d chars %d tokens %d messages; want %d %d %d", rc, rt, rm, m.TotalChars, m.TotalTokens, m.Messages)
	}
	want := map[string]int64{}
	var roleChars [4]int64
	for i, msg := range full.Messages {
		roleChars[msg.Role] += msg.Cost
		if msg.Role != line.RoleTool {
			continue
		}
		label := "tool (no call)"
		if a, c, ok := full.AnsweredCall(i); ok {
			label = full.Messages[a].Calls[c].Name
		}
		want[label] += msg.Cost
	}
	got := map[string]int64{}
	var tc int64
	for _, r := range m.Tools {
		got[r.Label] += r.Chars
		tc += r.Chars
	}
	if len(m.Kinds) <= 3+MaxToolKinds {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("tool %q: %d chars; want %d", k, got[k], v)
			}
		}
		if len(got) != len(want) {
			t.Errorf("tools %v; want %v", got, want)
		}
	}
	if tc != m.Roles[2].Chars || m.Roles[0].Chars != roleChars[line.RoleUser] || m.Roles[1].Chars != roleChars[line.RoleAssistant] || m.Roles[2].Chars != roleChars[line.RoleTool] {
		t.Errorf("roles %+v, tools sum %d; want user %d assistant %d tool %d", m.Roles, tc, roleChars[line.RoleUser], roleChars[line.RoleAssistant], roleChars[line.RoleTool])
	}
	// Largest: the largest units, largest first, ties oldest first.
	for i, u := range m.Largest {
		fu := full.Units[u.Index]
		if u.StartLine != fu.StartLine || u.Chars != fu.Chars || u.Size != size(fu.Chars, fu.Tokens) {
			t.Errorf("largest %d: %+v; unit %+v", i, u, fu)
		}
		if i > 0 {
			p := m.Largest[i-1]
			if p.Size < u.Size || p.Size == u.Size && p.Index > u.Index {
				t.Errorf("largest out of order at %d: %d (unit %d) then %d (unit %d)", i, p.Size, p.Index, u.Size, u.Index)
			}
		}
	}
	if n := min(len(full.Units), max(cfg.Largest, DefaultLargest*boolInt(cfg.Largest == 0))); len(m.Largest) != n {
		t.Errorf("%d largest units; want %d", len(m.Largest), n)
	}
	if len(m.Largest) > 0 {
		smallest := m.Largest[len(m.Largest)-1]
		for k, u := range full.Units {
			s := size(u.Chars, u.Tokens)
			if !inLargest(m.Largest, k) && (s > smallest.Size || s == smallest.Size && k < smallest.Index) {
				t.Errorf("unit %d (size %d) is not among the largest, whose smallest is unit %d (size %d)", k, s, smallest.Index, smallest.Size)
			}
		}
	}
	// Refused lines: the report's invalid lines.
	if m.RefusedLines != full.InvalidLines || (m.LoadFailure == nil) != full.Loads() {
		t.Errorf("refused %d, load failure %v; report: %d invalid, loads %v", m.RefusedLines, m.LoadFailure, full.InvalidLines, full.Loads())
	}
	if len(m.Refused) != min(full.InvalidLines, MaxRefused) {
		t.Errorf("%d refused lines listed; %d invalid", len(m.Refused), full.InvalidLines)
	}
	for _, r := range m.Refused {
		var before int64
		for _, u := range full.Units {
			if u.EndLine < r.Line {
				before += size(u.Chars, u.Tokens)
			}
		}
		if r.At != before {
			t.Errorf("refused line %d at %d; the units before it sum to %d", r.Line, r.At, before)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func inLargest(us []UnitInfo, k int) bool {
	for _, u := range us {
		if u.Index == k {
			return true
		}
	}
	return false
}

func TestMapInvariants(t *testing.T) {
	demo, err := os.ReadFile("../../testdata/sessions/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	units, err := os.ReadFile("../../testdata/sessions/units.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	big := transcript.Session(3000, 7)
	small := transcript.Session(400, 7) // token counting is slower
	counter, err := tokens.New(tokens.Default)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
		opts analysis.Options
		cfg  Config
	}{
		{"demo, no budget", demo, analysis.Options{}, Config{}},
		{"demo, budget 500", demo, analysis.Options{Budget: 500}, Config{}},
		{"demo, budget too small", demo, analysis.Options{Budget: 5}, Config{}},
		{"units, budget, bins of 3", units, analysis.Options{Budget: 400}, Config{TargetBins: 3, Largest: 2}},
		{"transcript, budget", big, analysis.Options{Budget: 200000}, Config{}},
		{"transcript, bins of 50", big, analysis.Options{Budget: 300000}, Config{TargetBins: 50, Largest: 5}},
		{"transcript, tokens, bins of 50", small, analysis.Options{Tokens: counter, TokenBudget: 50000}, Config{TargetBins: 50}},
		{"transcript, tokens counted, sized by chars", small, analysis.Options{Tokens: counter, Budget: 100000}, Config{TargetBins: 40}},
		{"transcript, sized by tokens, budget in chars", small, analysis.Options{Tokens: counter, Budget: 100000}, Config{TargetBins: 40, ByTokens: true}},
		{"empty", nil, analysis.Options{Budget: 100}, Config{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, rep := mapOf(t, tc.data, tc.opts, tc.cfg)
			fullOpts := tc.opts
			full := analysis.Analyze(tc.data, fullOpts)
			if (rep.Cutoff == nil) != (full.Cutoff == nil) {
				t.Fatal("streamed and whole reports disagree on the cutoff")
			}
			checkInvariants(t, m, full, tc.cfg)
			if tc.opts.TokenBudget > 0 && m.Measure != "tokens" {
				t.Errorf("measure %q for a token budget", m.Measure)
			}
			// The budget is named in its own unit, whatever the map is
			// sized by (map --tokens --max-chars N is a budget in chars).
			if want := map[bool]string{false: "chars", true: "tokens"}[tc.opts.TokenBudget > 0]; m.Budget != nil && m.Budget.Unit != want {
				t.Errorf("budget unit %q, want %q", m.Budget.Unit, want)
			}
		})
	}
}

// TestMapRandom checks the invariants on random hostile files (invalid
// lines, orphans, swept messages, repeated ids) with random bin targets.
func TestMapRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 1))
	n := 300
	if testing.Short() {
		n = 50
	}
	for i := range n {
		data := randjsonl.File(r, 1+r.IntN(60))
		opts := analysis.Options{Budget: int64(r.IntN(3000))}
		cfg := Config{TargetBins: 1 + r.IntN(8), Largest: 1 + r.IntN(4)}
		m, _ := mapOf(t, data, opts, cfg)
		full := analysis.Analyze(data, opts)
		checkInvariants(t, m, full, cfg)
		if t.Failed() {
			t.Fatalf("file %d:\n%s", i, data)
		}
	}
}

func TestMapLoadFailure(t *testing.T) {
	data := []byte(`{"role":"user","content":"a"}
{"role":"user","content":
{"role":"assistant","content":"b","toolCalls":[{"id":"1","name":"x","input":{}}]}
{"role":"system","content":"c"}
{"role":"tool","toolCallId":"1","isError":false,"content":"d"}
`)
	m, full := mapOf(t, data, analysis.Options{Budget: 1000}, Config{})
	if m.LoadFailure == nil || m.LoadFailure.Line != 2 || !strings.Contains(m.LoadFailure.Summary, "does not load") {
		t.Fatalf("load failure %+v", m.LoadFailure)
	}
	if m.Budget == nil || m.Budget.Error == "" || m.Budget.FirstKeptLine != 0 {
		t.Errorf("budget %+v on a file that does not load", m.Budget)
	}
	if len(m.Refused) != 2 || m.Refused[0].Line != 2 || m.Refused[0].Code != analysis.CodeTruncatedRecord || m.Refused[1].Line != 4 || m.Refused[1].Code != analysis.CodeInvalidRecord {
		t.Errorf("refused %+v", m.Refused)
	}
	// Line 2 falls after unit 1 (line 1), line 4 inside unit 2 (lines 3-5).
	if m.Refused[0].At != full.Units[0].Chars || m.Refused[1].At != full.Units[0].Chars {
		t.Errorf("refused at %d, %d; unit 1 costs %d", m.Refused[0].At, m.Refused[1].At, full.Units[0].Chars)
	}
	for _, b := range m.Bins {
		if b.Kept {
			t.Errorf("bin %+v kept in a file that does not load", b)
		}
	}
	if len(m.Tools) != 1 || m.Tools[0].Label != "x" || m.Tools[0].Messages != 1 {
		t.Errorf("tools %+v", m.Tools)
	}
}

// TestManyToolNames: past MaxToolKinds names, results share one kind, and
// a hostile long name is cut.
func TestManyToolNames(t *testing.T) {
	var buf bytes.Buffer
	long := strings.Repeat("é", 500)
	for i := range MaxToolKinds + 10 {
		name := "tool" + strings.Repeat("x", i)
		if i == 0 {
			name = long
		}
		id := string(rune('a'+i%26)) + strings.Repeat("z", i)
		buf.WriteString(`{"role":"assistant","content":"","toolCalls":[{"id":"` + id + `","name":"` + name + `","input":null}]}` + "\n")
		buf.WriteString(`{"role":"tool","toolCallId":"` + id + `","isError":false,"content":"r"}` + "\n")
	}
	m, _ := mapOf(t, buf.Bytes(), analysis.Options{}, Config{})
	full := analysis.Analyze(buf.Bytes(), analysis.Options{})
	if len(m.Kinds) != 3+MaxToolKinds+1 || m.Kinds[len(m.Kinds)-1].Note != "other tools" {
		t.Fatalf("%d kinds, last %+v", len(m.Kinds), m.Kinds[len(m.Kinds)-1])
	}
	if k := m.Kinds[3].Tool; len(k) > maxName || !strings.HasPrefix(long, k) {
		t.Errorf("long name kept as %d bytes", len(k))
	}
	var other Row
	for _, r := range m.Tools {
		if r.Label == "tool (other tools)" {
			other = r
		}
	}
	if other.Messages != 10 {
		t.Errorf("other tools row %+v; want 10 messages", other)
	}
	checkInvariants(t, m, full, Config{})
}

func TestBuildWithoutObserving(t *testing.T) {
	rep := analysis.Analyze([]byte(`{"role":"user","content":"a"}`+"\n"), analysis.Options{})
	if _, err := NewBuilder().Build(rep, Config{}); err == nil || !strings.Contains(err.Error(), "Observer") {
		t.Errorf("err = %v; want one naming the Observer", err)
	}
}

// TestRecListBig: costs past 2^32-1 are kept exactly.
func TestRecListBig(t *testing.T) {
	var l recList
	l.add(rec{kind: 1}, 5, 0)
	l.add(rec{kind: 2}, 1<<33, 7)
	l.add(rec{kind: 0}, 9, 1<<34)
	for i, want := range [][3]int64{{1, 5, 0}, {2, 1 << 33, 7}, {0, 9, 1 << 34}} {
		k, c, tk := l.at(i)
		if int64(k) != want[0] || c != want[1] || tk != want[2] {
			t.Errorf("rec %d = %d %d %d; want %v", i, k, c, tk, want)
		}
	}
}

// TestGolden pins the wire format: demo.jsonl for a budget of 500, as
// JSON.
func TestGolden(t *testing.T) {
	data, err := os.ReadFile("../../testdata/sessions/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := mapOf(t, data, analysis.Options{Budget: 500}, Config{})
	got, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "demo-500.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./analysis/ctxmap -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("map differs from %s (review, then -update):\n%s", path, got)
	}
}

// TestFromReport: a report that holds its messages (a Document's) maps
// exactly as the stream observed while it was made.
func TestFromReport(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 2))
	for i := range 100 {
		data := randjsonl.File(r, 1+r.IntN(40))
		opts := analysis.Options{Budget: int64(r.IntN(2000))}
		cfg := Config{TargetBins: 1 + r.IntN(6), Budget: opts.Budget}
		streamed, _ := mapOf(t, data, opts, cfg)
		doc := analysis.NewDocument(string(data), opts)
		held, err := FromReport(doc.Report(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(streamed)
		b, _ := json.Marshal(held)
		if !bytes.Equal(a, b) {
			t.Fatalf("file %d: the document's map differs from the stream's:\n%s\n%s\n%s", i, data, a, b)
		}
	}
	rep := analysis.Analyze([]byte(`{"role":"user","content":"a"}`+"\n"), analysis.Options{SkipMessages: true})
	if _, err := FromReport(rep, Config{}); err == nil {
		t.Error("a report without its messages was mapped")
	}
}
