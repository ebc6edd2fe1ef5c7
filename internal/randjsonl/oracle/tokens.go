package oracle

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TokensScript returns the path of testdata/oracle/tokens/tokens.mjs.
func TokensScript() string {
	return filepath.Join(filepath.Dir(Script()), "tokens", "tokens.mjs")
}

// TokensDir returns the directory where testdata/oracle/tokens/install.sh
// installed js-tiktoken: $SESSIONLS_CACHE/tokens, else
// os.UserCacheDir()/sessionls-ci/tokens. When it holds no complete install
// of this repository's lockfile, it skips the test, or fails it when the CI
// environment variable is set.
func TokensDir(t testing.TB) string {
	t.Helper()
	cache := os.Getenv("SESSIONLS_CACHE")
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = filepath.Join(os.TempDir(), "cache")
		}
		cache = filepath.Join(dir, "sessionls-ci")
	}
	dir := filepath.Join(cache, "tokens")
	if err := tokensInstalled(dir); err != nil {
		msg := fmt.Sprintf("js-tiktoken is not installed in %s (run testdata/oracle/tokens/install.sh): %v", dir, err)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg + "; skipping the token differential test")
	}
	return dir
}

// tokensInstalled checks that dir holds an install of the lockfile in
// testdata/oracle/tokens (install.sh writes its hash to .complete).
func tokensInstalled(dir string) error {
	lock, err := os.ReadFile(filepath.Join(filepath.Dir(TokensScript()), "package-lock.json"))
	if err != nil {
		return err
	}
	done, err := os.ReadFile(filepath.Join(dir, ".complete"))
	if err != nil {
		return err
	}
	if want := fmt.Sprintf("%x", sha256.Sum256(lock)); strings.TrimSpace(string(done)) != want {
		return errors.New("it was installed from another package-lock.json")
	}
	return nil
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
	out, err := run(ctx, node, []string{"SESSIONLS_TOKENS_ORACLE=" + dir}, TokensScript(), mode, path)
	if err != nil {
		return nil, err
	}
	return decodeAll[Text](out, "tokens.mjs")
}
