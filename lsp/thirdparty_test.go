package lsp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionls/sessionls/analysis"
)

// inCI reports whether the tests run in CI, where everything a test needs
// must be present: a missing tool fails the test instead of skipping it.
func inCI() bool { return os.Getenv("CI") != "" }

// needTool returns the path of a tool the test needs: it skips without it,
// but fails in CI, where every tool must be present.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if inCI() {
			t.Fatalf("%s is required in CI: %v", name, err)
		}
		t.Skipf("%s not installed: %v", name, err)
	}
	return p
}

// thirdPartyDir is where testdata/thirdparty/install.sh installs the
// client's libraries: $SESSIONLS_CACHE/thirdparty, else
// os.UserCacheDir()/sessionls-ci/thirdparty.
func thirdPartyDir() (string, error) {
	cache := os.Getenv("SESSIONLS_CACHE")
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no cache directory for the third-party client (set SESSIONLS_CACHE): %w", err)
		}
		cache = filepath.Join(dir, "sessionls-ci")
	}
	return filepath.Join(cache, "thirdparty"), nil
}

// needThirdPartyClient returns the directory of an install of the client's
// libraries made from the package-lock.json in src. Without one it skips,
// saying how to install it; in CI it fails (.ci/run installs it first).
func needThirdPartyClient(t *testing.T, src string) string {
	t.Helper()
	dir, err := thirdPartyDir()
	if err != nil {
		t.Fatal(err)
	}
	lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(lock)
	marker, _ := os.ReadFile(filepath.Join(dir, ".complete"))
	_, modErr := os.Stat(filepath.Join(dir, "node_modules", "vscode-languageserver-protocol", "package.json"))
	var problem string
	switch {
	case modErr != nil:
		problem = fmt.Sprintf("the third-party LSP client is not installed in %s", dir)
	case strings.TrimSpace(string(marker)) != hex.EncodeToString(sum[:]):
		problem = fmt.Sprintf("the third-party LSP client in %s was not installed from the current %s", dir, filepath.Join(src, "package-lock.json"))
	default:
		return dir
	}
	msg := problem + "; run lsp/testdata/thirdparty/install.sh (.ci/run does)"
	if inCI() {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// TestThirdPartyClient builds the sessionls binary and drives it over
// stdio with vscode-languageserver-protocol (testdata/thirdparty/client.mjs),
// installed outside the source tree by testdata/thirdparty/install.sh.
func TestThirdPartyClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs node")
	}
	node := needTool(t, "node")
	src, err := filepath.Abs(filepath.Join("testdata", "thirdparty"))
	if err != nil {
		t.Fatal(err)
	}
	installed := needThirdPartyClient(t, src)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	bin := filepath.Join(t.TempDir(), "sessionls")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "../cmd/sessionls")
	out, err := build.CombinedOutput()
	if err != nil {
		t.Fatalf("building sessionls:\n%s: %v", out, err)
	}

	// The expected diagnostics, by the server's own rules: its document,
	// its range rule (findingRange) and its severities.
	session := testdataPath(t, "demo.jsonl")
	data, err := os.ReadFile(session)
	if err != nil {
		t.Fatal(err)
	}
	doc := analysis.NewDocument(string(data), analysis.Options{})
	type diag struct {
		Code           string `json:"code"`
		Line           int    `json:"line"`
		StartCharacter int    `json:"startCharacter"`
		EndCharacter   int    `json:"endCharacter"`
		Severity       int    `json:"severity"`
		Message        string `json:"message"`
		Source         string `json:"source"`
	}
	want := []diag{}
	for _, f := range doc.Report().Findings {
		r := findingRange(doc, f.Line, f.Span)
		want = append(want, diag{f.Code, int(r.Start.Line), int(r.Start.Character), int(r.End.Character),
			int(toSeverity(f.Severity)), f.Message, diagnosticSource})
	}
	if len(want) == 0 {
		t.Fatal("want is empty, want some")
	}
	expected := filepath.Join(t.TempDir(), "expected.json")
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(expected, b, 0o644); err != nil {
		t.Fatalf("os.WriteFile(expected, b, 0o644): %v", err)
	}

	cmd := exec.CommandContext(ctx, node, "client.mjs", bin, session, expected, installed)
	cmd.Dir = src
	out, err = cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("the third-party client failed: %v", err)
	}
}
