package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/internal/glob"
)

// TestSchemaMatchesKeys holds schema/sessionls.schema.json (what TOML
// editors complete and validate with) to the keys, codes, tokenizers and
// bounds the parser accepts.
func TestSchemaMatchesKeys(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "schema", "sessionls.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		AdditionalProperties bool                       `json:"additionalProperties"`
		Properties           map[string]json.RawMessage `json:"properties"`
		Definitions          map[string]struct {
			Items struct {
				Enum      []string `json:"enum"`
				MaxLength int      `json:"maxLength"`
			} `json:"items"`
			Enum     []string `json:"enum"`
			Minimum  *int     `json:"minimum"`
			MaxItems int      `json:"maxItems"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	var overrides struct {
		Items struct {
			AdditionalProperties bool                       `json:"additionalProperties"`
			Required             []string                   `json:"required"`
			Properties           map[string]json.RawMessage `json:"properties"`
		} `json:"items"`
	}
	if err := json.Unmarshal(schema.Properties["overrides"], &overrides); err != nil {
		t.Fatal(err)
	}

	keys := func(m map[string]json.RawMessage) []string {
		out := make([]string, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	top, over := Keys()
	sort.Strings(top)
	sort.Strings(over)
	if got, want := keys(schema.Properties), top; !reflect.DeepEqual(got, want) {
		t.Fatalf("keys(schema.Properties) = %v, want %v", got, want)
	}
	if got, want := keys(overrides.Items.Properties), over; !reflect.DeepEqual(got, want) {
		t.Fatalf("keys(overrides.Items.Properties) = %v, want %v", got, want)
	}
	if schema.AdditionalProperties {
		t.Fatal("schema.AdditionalProperties = true, want false")
	}
	if overrides.Items.AdditionalProperties {
		t.Fatal("overrides.Items.AdditionalProperties = true, want false")
	}
	if got, want := overrides.Items.Required, []string{"files"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("overrides.Items.Required = %v, want %v", got, want)
	}

	if got, want := schema.Definitions["disable"].Items.Enum, analysis.Codes(); !reflect.DeepEqual(got, want) {
		t.Fatalf(`schema.Definitions["disable"].Items.Enum = %v, want %v`, got, want)
	}
	if got, want := schema.Definitions["tokenizer"].Enum, Tokenizers(); !reflect.DeepEqual(got, want) {
		t.Fatalf(`schema.Definitions["tokenizer"].Enum = %v, want %v`, got, want)
	}
	for _, k := range []string{"budget", "max-tokens"} {
		if schema.Definitions[k].Minimum == nil {
			t.Fatalf("%s: schema.Definitions[k].Minimum is nil", k)
		}
		if got := *schema.Definitions[k].Minimum; got != 1 {
			t.Fatalf("%s: *schema.Definitions[k].Minimum = %v, want %v", k, got, 1)
		}
	}
	if got, want := schema.Definitions["globs"].MaxItems, glob.MaxPatterns; got != want {
		t.Fatalf(`schema.Definitions["globs"].MaxItems = %v, want %v`, got, want)
	}
	if got, want := schema.Definitions["globs"].Items.MaxLength, glob.MaxPatternLen; got != want {
		t.Fatalf(`schema.Definitions["globs"].Items.MaxLength = %v, want %v`, got, want)
	}

	// A file using every key the schema documents parses.
	_, err = Parse("/p/sessionls.toml", "sessionls.toml", "/p", []byte(`
budget = 20000
disable = ["swept-message"]
strict = true
files = ["**/*.jsonl"]
exclude = ["drafts"]
tokenizer = "cl100k_base"
max-tokens = 4000
[[overrides]]
files = ["ci/**"]
budget = 1
disable = []
strict = false
tokenizer = "o200k_base"
max-tokens = 2
`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(top, "overrides") {
		t.Fatal(`slices.Contains(top, "overrides") = false, want true`)
	}
}

// TestReadmeExampleParses: the example in the README's Configuration
// section is a valid file.
func TestReadmeExampleParses(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i := strings.Index(s, "## Configuration")
	if got := i; got < 0 {
		t.Fatalf("i = %v, want >= %v", got, 0)
	}
	start := strings.Index(s[i:], "```toml\n")
	if got := start; got < 0 {
		t.Fatalf("start = %v, want >= %v", got, 0)
	}
	body := s[i+start+len("```toml\n"):]
	body = body[:strings.Index(body, "```")]
	f, err := Parse("/p/sessionls.toml", "sessionls.toml", "/p", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	st := Defaults()
	f.Apply(&st, "/p/ci/a.jsonl")
	if got := st.Budget.V; got != int64(8000) {
		t.Fatalf("st.Budget.V = %v, want %v", got, int64(8000))
	}
	if !st.Strict.V {
		t.Fatal("st.Strict.V = false, want true")
	}
	if f.Selects("/p/drafts/a.jsonl") {
		t.Fatal(`f.Selects("/p/drafts/a.jsonl") = true, want false`)
	}
}
