package lsp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sessionls/sessionls/analysis"
	"github.com/stretchr/testify/require"
)

// needTool returns the path of a tool the test needs: it skips without it,
// but fails in CI, where every tool must be present.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is required in CI: %v", name, err)
		}
		t.Skipf("%s not installed: %v", name, err)
	}
	return p
}

// TestThirdPartyClient builds the sessionls binary and drives it over
// stdio with vscode-languageserver-protocol (testdata/thirdparty/client.mjs).
func TestThirdPartyClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs node")
	}
	node := needTool(t, "node")
	dir, err := filepath.Abs(filepath.Join("testdata", "thirdparty"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	if _, err := os.Stat(filepath.Join(dir, "node_modules", "vscode-languageserver-protocol")); err != nil {
		npm := needTool(t, "npm")
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "npm ci in %s:\n%s", dir, out)
	}

	bin := filepath.Join(t.TempDir(), "sessionls")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "../cmd/sessionls")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "building sessionls:\n%s", out)

	session := testdataPath(t, "demo.jsonl")
	data, err := os.ReadFile(session)
	require.NoError(t, err)
	rep := analysis.Analyze(data, analysis.Options{})
	type diag struct {
		Code           string `json:"code"`
		Line           int    `json:"line"`
		StartCharacter int    `json:"startCharacter"`
		EndCharacter   int    `json:"endCharacter"`
		Severity       int    `json:"severity"`
		Message        string `json:"message"`
		Source         string `json:"source"`
	}
	want := make([]diag, 0, len(rep.Findings))
	for _, f := range rep.Findings {
		want = append(want, diag{f.Code, f.Line - 1, f.Span.StartCol, f.Span.EndCol, int(toSeverity(f.Severity)), f.Message, "sessionls"})
	}
	require.NotEmpty(t, want)
	expected := filepath.Join(t.TempDir(), "expected.json")
	b, err := json.Marshal(want)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(expected, b, 0o644))

	cmd := exec.CommandContext(ctx, node, "client.mjs", bin, session, expected)
	cmd.Dir = dir
	out, err = cmd.CombinedOutput()
	t.Logf("%s", out)
	require.NoError(t, err, "the third-party client failed")
}
