package analysis

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis/tokens"
	"github.com/sessionls/sessionls/internal/randjsonl"
	"github.com/sessionls/sessionls/internal/transcript"
)

func tokenCounter(t testing.TB) *tokens.Counter {
	t.Helper()
	c, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// tokenTexts are sessions with tool-call structure and hostile content.
func tokenTexts() []string {
	texts := []string{string(transcript.Session(120, 3)), "", jU() + "\n" + jU()}
	r := rand.New(rand.NewPCG(7, 7))
	for range 20 {
		texts = append(texts, string(randjsonl.File(r, 30)))
	}
	return texts
}

func TestTokensCounted(t *testing.T) {
	c := tokenCounter(t)
	for i, text := range tokenTexts() {
		rep := Analyze([]byte(text), Options{Tokens: c})
		lines := strings.Split(text, "\n")
		var total int64
		for _, m := range rep.Messages {
			want, err := c.Message([]byte(lines[m.Line-1]))
			if err != nil {
				t.Fatalf("text %d line %d: %v", i, m.Line, err)
			}
			if m.Tokens != int64(want) {
				t.Errorf("text %d line %d: Tokens %d, the counter says %d", i, m.Line, m.Tokens, want)
			}
			total += m.Tokens
		}
		if rep.TotalTokens != total {
			t.Errorf("text %d: TotalTokens %d, messages sum to %d", i, rep.TotalTokens, total)
		}
		var fromNewest int64
		for k := len(rep.Units) - 1; k >= 0; k-- {
			u := rep.Units[k]
			var sum int64
			for _, m := range rep.Messages[u.First : u.Last+1] {
				sum += m.Tokens
			}
			fromNewest += sum
			if u.Tokens != sum || u.TokensFromNewest != fromNewest {
				t.Errorf("text %d unit %d: Tokens %d / from newest %d, want %d / %d", i, k, u.Tokens, u.TokensFromNewest, sum, fromNewest)
			}
		}
		// Counting tokens changes nothing else.
		plain := Analyze([]byte(text), Options{})
		stripped := *rep
		stripped.TotalTokens = 0
		stripped.Messages = append([]Message(nil), rep.Messages...)
		for k := range stripped.Messages {
			stripped.Messages[k].Tokens = 0
		}
		stripped.Units = append([]Unit(nil), rep.Units...)
		for k := range stripped.Units {
			stripped.Units[k].Tokens, stripped.Units[k].TokensFromNewest = 0, 0
		}
		if !reflect.DeepEqual(&stripped, plain) {
			t.Errorf("text %d: counting tokens changed the rest of the report", i)
		}
	}
}

// cutByTokens is trimContext's packing loop, written plainly, by tokens.
func cutByTokens(units []Unit, budget int64) (firstUnit int, kept int64, err error) {
	if len(units) == 0 {
		return 0, 0, ErrEmptyContext
	}
	firstUnit = len(units)
	for k := len(units) - 1; k >= 0; k-- {
		if kept+units[k].Tokens > budget {
			break
		}
		kept += units[k].Tokens
		firstUnit = k
	}
	if firstUnit == len(units) {
		return 0, 0, ErrBudgetTooSmall
	}
	return firstUnit, kept, nil
}

func TestTokenBudget(t *testing.T) {
	c := tokenCounter(t)
	for i, text := range tokenTexts() {
		rep := Analyze([]byte(text), Options{Tokens: c})
		if !rep.Loads() {
			continue
		}
		for _, budget := range []int64{1, 10, 50, 200, 1000, rep.TotalTokens - 1, rep.TotalTokens, 1 << 40} {
			if budget <= 0 {
				continue
			}
			got := Analyze([]byte(text), Options{Tokens: c, TokenBudget: budget, Budget: 5})
			first, kept, err := cutByTokens(rep.Units, budget)
			if !errors.Is(got.CutoffErr, err) || (err == nil) != (got.Cutoff != nil) {
				t.Fatalf("text %d budget %d: error %v, want %v", i, budget, got.CutoffErr, err)
			}
			if err != nil {
				continue
			}
			cut := got.Cutoff
			if !cut.ByTokens || cut.FirstUnit != first || cut.KeptTokens != kept || cut.Budget != budget {
				t.Errorf("text %d budget %d: cutoff %+v, want unit %d keeping %d tokens", i, budget, cut, first, kept)
			}
			if cut.KeptTokens > budget {
				t.Errorf("text %d budget %d: keeps %d tokens", i, budget, cut.KeptTokens)
			}
			for _, f := range got.Findings {
				if f.Code == CodeBudgetCutoff && (!strings.HasPrefix(f.Message, "token budget ") || !strings.Contains(f.Message, " tokens")) {
					t.Errorf("text %d budget %d: cutoff finding %q does not speak of tokens", i, budget, f.Message)
				}
			}
		}
	}
}

func TestTokensStreamMatchesAnalyze(t *testing.T) {
	c := tokenCounter(t)
	for i, text := range tokenTexts() {
		for _, chunk := range []int{64, 1 << 20} {
			e := streamEngine(newEngine().parse, chunk, 3)
			opts := Options{Tokens: c, TokenBudget: 300}
			want := e.analyze([]byte(text), opts)
			got, err := e.analyzeReader(context.Background(), strings.NewReader(text), opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("text %d chunk %d: the stream's report differs from Analyze's", i, chunk)
			}
		}
	}
}

// failingCounter fails on lines that hold "BAD".
type failingCounter struct{}

func (failingCounter) Message(l []byte) (int, error) {
	if bytes.Contains(l, []byte("BAD")) {
		return 0, errors.New("refused")
	}
	return 1, nil
}

func TestTokensError(t *testing.T) {
	text := jU() + "\n" + `{"role":"user","content":"BAD 1"}` + "\n\n" + `{"role":"user","content":"BAD 2"}` + "\n"
	for _, chunk := range []int{8, 1 << 20} {
		e := streamEngine(newEngine().parse, chunk, 2)
		rep, err := e.analyzeReader(context.Background(), strings.NewReader(text), Options{Tokens: failingCounter{}, TokenBudget: 10})
		if err != nil {
			t.Fatal(err)
		}
		if rep.TokensErr == nil || rep.TokensErr.Line != 2 || !strings.Contains(rep.TokensErr.Error(), "line 2: refused") {
			t.Errorf("chunk %d: TokensErr %v, want the first failing line, 2", chunk, rep.TokensErr)
		}
		if rep.Cutoff != nil || rep.CutoffErr != nil {
			t.Errorf("chunk %d: a token cutoff was made from incomplete counts", chunk)
		}
	}
}
