package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"io"
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
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/sessionls")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

func execBinary(t *testing.T, bin, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = ".."
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

	demo, err := os.ReadFile(filepath.Join("..", "testdata", "sessions", "demo.jsonl"))
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

// readFrame reads one LSP message (Content-Length framing) and returns its body.
func readFrame(r *bufio.Reader) (string, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return "", err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			if n, err = strconv.Atoi(v); err != nil {
				return "", err
			}
		}
	}
	if n < 0 {
		return "", errors.New("frame without Content-Length")
	}
	body := make([]byte, n)
	_, err := io.ReadFull(r, body)
	return string(body), err
}

// TestBinaryServe drives `sessionls serve --stdio` through a whole
// initialize/shutdown/exit exchange, as VS Code starts it, waiting for each
// response before the next request as a client does.
func TestBinaryServe(t *testing.T) {
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--stdio", "--log-file", filepath.Join(t.TempDir(), "log"))
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	// Written by exec's copying goroutine while the test reads it.
	errb := &lockedBuffer{b: &bytes.Buffer{}}
	cmd.Stderr = errb
	require.NoError(t, cmd.Start())
	out := bufio.NewReader(stdout)
	// await reads messages until the response with the given id.
	await := func(id string) string {
		t.Helper()
		for {
			body, err := readFrame(out)
			require.NoError(t, err, "waiting for response %s; stderr %q", id, errb.String())
			if strings.Contains(body, `"id":`+id) && !strings.Contains(body, `"method"`) {
				return body
			}
		}
	}
	send := func(body string) {
		t.Helper()
		_, err := io.WriteString(stdin, lspFrame(body))
		require.NoError(t, err)
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`)
	assert.Contains(t, await("1"), `"capabilities"`)
	send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	assert.Contains(t, await("2"), `"result":null`)
	send(`{"jsonrpc":"2.0","method":"exit"}`)
	require.NoError(t, cmd.Wait(), "exit after shutdown is status 0; stderr %q", errb.String())
}

// TestBinaryColorOnATerminal runs the binary under script(1), which gives
// it a pseudo-terminal: colour there, none with NO_COLOR.
func TestBinaryColorOnATerminal(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) not installed")
	}
	bin := buildBinary(t)
	for _, tc := range []struct {
		noColor string
		want    bool
	}{{"", true}, {"1", false}} {
		cmd := exec.Command(script, "-qec", bin+" check testdata/sessions/demo.jsonl", "/dev/null")
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "NO_COLOR="+tc.noColor)
		out, _ := cmd.Output()
		assert.Contains(t, string(out), "testdata/sessions/demo.jsonl", "NO_COLOR=%q: %q", tc.noColor, out)
		assert.Equal(t, tc.want, strings.Contains(string(out), "\x1b[1;31merror[invalid-record]\x1b[0m"), "NO_COLOR=%q: %q", tc.noColor, out)
	}
}
