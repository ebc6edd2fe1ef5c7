package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// buildBinary builds cmd/sessionls once per test into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "sessionls")
	cmd := exec.Command("go", "build", "-o", bin, "../../cmd/sessionls")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

func execBinary(t *testing.T, bin, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}

func TestBinary(t *testing.T) {
	bin := buildBinary(t)
	r := execBinary(t, bin, "", "version")
	assert.Equal(t, 0, r.code)
	assert.True(t, strings.HasPrefix(r.stdout, "sessionls "), r.stdout)
	assert.Contains(t, r.stdout, " (go1.")

	r = execBinary(t, bin, "", "check", "testdata/sessions/clean.jsonl")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "All checks passed (1 file).\n", r.stdout)
	assert.NotContains(t, r.stdout, "\x1b[", "no colour when stdout is a pipe")

	r = execBinary(t, bin, "", "check", "testdata/sessions/demo.jsonl", "testdata/sessions/missing.jsonl")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stdout, "testdata/sessions/demo.jsonl:7:2: error[invalid-record]")
	assert.Equal(t, "sessionls: cannot read testdata/sessions/missing.jsonl: no such file or directory\n", r.stderr)

	demo, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sessions", "demo.jsonl"))
	require.NoError(t, err)
	r = execBinary(t, bin, string(demo), "check", "--format", "github", "--stdin-filename", "s/demo.jsonl", "-")
	assert.Equal(t, 1, r.code)
	assert.True(t, strings.HasPrefix(r.stdout, "::error file=s/demo.jsonl,line=7,col=2,"), r.stdout)

	r = execBinary(t, bin, "", "frobnicate")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `unknown command "frobnicate"`)

	r = execBinary(t, bin, "", "budget", "--max-chars", "300", "--format", "json", "testdata/sessions/clean.jsonl")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"firstKeptLine": 6`)
}

func lspFrame(body string) string {
	return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// TestBinaryServe drives `sessionls serve --stdio` through a whole
// initialize/shutdown/exit exchange, as VS Code starts it.
func TestBinaryServe(t *testing.T) {
	bin := buildBinary(t)
	in := lspFrame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`) +
		lspFrame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`) +
		lspFrame(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`) +
		lspFrame(`{"jsonrpc":"2.0","method":"exit"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--stdio", "--log-file", filepath.Join(t.TempDir(), "log"))
	cmd.Stdin = strings.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	require.NoError(t, err, "serve: stderr %q", errb.String())
	assert.Contains(t, out.String(), `"capabilities"`)
	assert.Contains(t, out.String(), `"id":2`)
}
