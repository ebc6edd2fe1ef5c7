package oracle

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TokensScript returns the path of testdata/oracle/tokens/tokens.mjs.
func TokensScript() string {
	return filepath.Join(filepath.Dir(Script()), "tokens", "tokens.mjs")
}

// TokensDir returns the directory where testdata/oracle/tokens/install.sh
// installed js-tiktoken: $SESSIONLS_TOKENS_ORACLE, or else
// ${SESSIONLS_CACHE:-$HOME/.cache/sessionls-ci}/tokens. When js-tiktoken is
// not there it skips the test, or fails it when the CI environment variable
// is set.
func TokensDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("SESSIONLS_TOKENS_ORACLE")
	if dir == "" {
		cache := os.Getenv("SESSIONLS_CACHE")
		if cache == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				home = os.TempDir()
			}
			cache = filepath.Join(home, ".cache", "sessionls-ci")
		}
		dir = filepath.Join(cache, "tokens")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "js-tiktoken", "package.json")); err != nil {
		msg := fmt.Sprintf("js-tiktoken is not installed in %s (run testdata/oracle/tokens/install.sh): %v", dir, err)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg + "; skipping the token differential test")
	}
	return dir
}

// Text is the oracle's answer for one non-empty physical line: Text is
// JSON.stringify of the normalized message, nil for a line that does not
// load or cannot be stringified; the counts are js-tiktoken's (count mode).
type Text struct {
	Line       int     `json:"line"`
	Text       *string `json:"text"`
	O200kBase  *int    `json:"o200k_base"`
	Cl100kBase *int    `json:"cl100k_base"`
}

// Stringify runs `tokens.mjs stringify path` (needs node only).
func Stringify(ctx context.Context, node, path string) ([]Text, error) {
	return texts(ctx, node, "", "stringify", path)
}

// Counts runs `tokens.mjs count path` with js-tiktoken from dir.
func Counts(ctx context.Context, node, dir, path string) ([]Text, error) {
	return texts(ctx, node, dir, "count", path)
}

func texts(ctx context.Context, node, dir, mode, path string) ([]Text, error) {
	cmd := exec.CommandContext(ctx, node, TokensScript(), mode, path)
	cmd.Env = append(os.Environ(), "SESSIONLS_TOKENS_ORACLE="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("oracle: node tokens.mjs %s: %w\n%s", mode, err, stderr.Bytes())
	}
	var ts []Text
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var t Text
		if err := dec.Decode(&t); err != nil {
			return nil, fmt.Errorf("oracle: decoding tokens.mjs output: %w", err)
		}
		ts = append(ts, t)
	}
	return ts, nil
}
