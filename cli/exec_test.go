package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
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
	if err != nil {
		t.Fatalf("go build: %s: %v", out, err)
	}
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
		if err != nil {
			t.Fatal(err)
		}
	}
	return result{out.String(), errb.String(), code}
}

func TestBinary(t *testing.T) {
	bin := buildBinary(t)
	r := execBinary(t, bin, "", "version")
	r.wantCode(t, 0)
	wantPrefix(t, "stdout", r.stdout, "sessionls ")
	r.wantStdout(t, " (go1.")

	r = execBinary(t, bin, "", "check", "testdata/sessions/clean.jsonl")
	r.wantCode(t, 0)
	if r.stdout != "All checks passed (1 file).\n" {
		t.Errorf("r.stdout = %q, want %q", r.stdout, "All checks passed (1 file).\n")
	}
	if strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("no colour when stdout is a pipe: r.stdout = %q, want it not to contain %q", r.stdout, "\x1b[")
	}

	r = execBinary(t, bin, "", "check", "testdata/sessions/demo.jsonl", "testdata/sessions/missing.jsonl")
	r.wantCode(t, 2)
	r.wantStdout(t, "testdata/sessions/demo.jsonl:7:2: error[invalid-record]")
	if r.stderr != "sessionls: cannot read testdata/sessions/missing.jsonl: no such file or directory\n" {
		t.Errorf("r.stderr = %q, want %q", r.stderr, "sessionls: cannot read testdata/sessions/missing.jsonl: no such file or directory\n")
	}

	demo := readFile(t, filepath.Join("..", "testdata", "sessions", "demo.jsonl"))
	r = execBinary(t, bin, string(demo), "check", "--format", "github", "--stdin-filename", "s/demo.jsonl", "-")
	r.wantCode(t, 1)
	wantPrefix(t, "stdout", r.stdout, "::error file=s/demo.jsonl,line=7,col=2,")

	r = execBinary(t, bin, "", "frobnicate")
	r.wantCode(t, 2)
	r.wantStderr(t, `unknown command "frobnicate"`)

	r = execBinary(t, bin, "", "budget", "--max-chars", "300", "--format", "json", "testdata/sessions/clean.jsonl")
	r.wantCode(t, 0)
	r.wantStdout(t, `"firstKeptLine": 6`)
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
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// Written by exec's copying goroutine while the test reads it.
	errb := &lockedBuffer{b: &bytes.Buffer{}}
	cmd.Stderr = errb
	if err := cmd.Start(); err != nil {
		t.Fatalf("cmd.Start(): %v", err)
	}
	out := bufio.NewReader(stdout)
	// await reads messages until the response with the given id.
	await := func(id string) string {
		t.Helper()
		for {
			body, err := readFrame(out)
			if err != nil {
				t.Fatalf("waiting for response %s; stderr %q: %v", id, errb.String(), err)
			}
			if strings.Contains(body, `"id":`+id) && !strings.Contains(body, `"method"`) {
				return body
			}
		}
	}
	send := func(body string) {
		t.Helper()
		_, err := io.WriteString(stdin, lspFrame(body))
		if err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`)
	if got := await("1"); !strings.Contains(got, `"capabilities"`) {
		t.Errorf(`await("1") = %q, want it to contain %q`, got, `"capabilities"`)
	}
	send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	if got := await("2"); !strings.Contains(got, `"result":null`) {
		t.Errorf(`await("2") = %q, want it to contain %q`, got, `"result":null`)
	}
	send(`{"jsonrpc":"2.0","method":"exit"}`)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after shutdown is status 0; stderr %q: cmd.Wait(): %v", errb.String(), err)
	}
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
		if got := string(out); !strings.Contains(got, "testdata/sessions/demo.jsonl") {
			t.Errorf("NO_COLOR=%q: %q: string(out) = %q, want it to contain %q", tc.noColor, out, got, "testdata/sessions/demo.jsonl")
		}
		if got := strings.Contains(string(out), "\x1b[1;31merror[invalid-record]\x1b[0m"); got != tc.want {
			t.Errorf(`NO_COLOR=%q: %q: strings.Contains(string(out), "\x1b[1;31merror[invalid-record]\x1b[0m") = %v, want %v`, tc.noColor, out, got, tc.want)
		}
	}
}
