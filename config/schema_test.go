package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/internal/glob"
)

// TestSchemaMatchesKeys holds schema/sessionls.schema.json (what TOML
// editors complete and validate with) to the keys, codes, tokenizers and
// bounds the parser accepts.
func TestSchemaMatchesKeys(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "schema", "sessionls.schema.json"))
	require.NoError(t, err)
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
	require.NoError(t, json.Unmarshal(raw, &schema))
	var overrides struct {
		Items struct {
			AdditionalProperties bool                       `json:"additionalProperties"`
			Required             []string                   `json:"required"`
			Properties           map[string]json.RawMessage `json:"properties"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(schema.Properties["overrides"], &overrides))

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
	require.Equal(t, top, keys(schema.Properties))
	require.Equal(t, over, keys(overrides.Items.Properties))
	require.False(t, schema.AdditionalProperties)
	require.False(t, overrides.Items.AdditionalProperties)
	require.Equal(t, []string{"files"}, overrides.Items.Required)

	require.Equal(t, analysis.Codes(), schema.Definitions["disable"].Items.Enum)
	require.Equal(t, Tokenizers(), schema.Definitions["tokenizer"].Enum)
	for _, k := range []string{"budget", "max-tokens"} {
		require.NotNil(t, schema.Definitions[k].Minimum, k)
		require.Equal(t, 1, *schema.Definitions[k].Minimum, k)
	}
	require.Equal(t, glob.MaxPatterns, schema.Definitions["globs"].MaxItems)
	require.Equal(t, glob.MaxPatternLen, schema.Definitions["globs"].Items.MaxLength)

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
	require.NoError(t, err)
	require.True(t, slices.Contains(top, "overrides"))
}

// TestReadmeExampleParses: the example in the README's Configuration
// section is a valid file.
func TestReadmeExampleParses(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(t, err)
	s := string(raw)
	i := strings.Index(s, "## Configuration")
	require.GreaterOrEqual(t, i, 0)
	start := strings.Index(s[i:], "```toml\n")
	require.GreaterOrEqual(t, start, 0)
	body := s[i+start+len("```toml\n"):]
	body = body[:strings.Index(body, "```")]
	f, err := Parse("/p/sessionls.toml", "sessionls.toml", "/p", []byte(body))
	require.NoError(t, err)
	st := Defaults()
	f.Apply(&st, "/p/ci/a.jsonl")
	require.Equal(t, int64(8000), st.Budget.V)
	require.True(t, st.Strict.V)
	require.False(t, f.Selects("/p/drafts/a.jsonl"))
}
