package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/randjsonl/oracle"
	"github.com/sessionls/sessionls/internal/transcript"
)

// TestReferenceMatchesOracle checks bench/reference.mjs, the streaming node
// reference the benchmarks compare with, against the oracle's loadSession on
// files whose lines straddle its 1 MB reads: a transcript, lines longer than
// a read, CRLF endings, blank lines and no final newline; and that it
// reports the runtime's error for a file that does not load.
func TestReferenceMatchesOracle(t *testing.T) {
	node := oracle.Node(t)
	ref := filepath.Join(filepath.Dir(oracle.Script()), "..", "..", "bench", "reference.mjs")
	long := `{"role":"user","content":"` + strings.Repeat(`é😀\"x\\ `, 300000) + `"}`
	files := map[string]string{
		"transcript": string(transcript.Session(2000, 6)),
		"long lines": `{"role":"user","content":"a"}` + "\r\n" + long + "\n\n" + long + "\r\n" +
			`{"role":"assistant","content":"","toolCalls":[]}`,
		"empty":   "",
		"blank":   "\n\n",
		"invalid": `{"role":"user","content":"a"}` + "\n\n" + long + "\n" + `{"role":"system","content":""}` + "\n",
	}
	dir := t.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".jsonl")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		answers, err := oracle.Batch(t.Context(), node, []oracle.Job{{Path: path}})
		if err != nil {
			t.Fatal(err)
		}
		want := answers[0].Budget
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(t.Context(), node, ref, path)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		if !want.Loads {
			if err == nil || strings.TrimSpace(stderr.String()) != want.Error {
				t.Errorf("%s: reference says %v %q, the oracle %q", name, err, stderr.String(), want.Error)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stderr.Bytes())
		}
		var got struct {
			Messages   int
			TotalChars int64
			Bytes      int64
		}
		if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
			t.Fatalf("%s: %v: %s", name, err, stdout.Bytes())
		}
		if got.Messages != want.Messages || got.TotalChars != want.TotalChars || got.Bytes != int64(len(text)) {
			t.Errorf("%s: reference %+v, oracle %d messages %d chars (%d bytes)", name, got, want.Messages, want.TotalChars, len(text))
		}
	}
}
