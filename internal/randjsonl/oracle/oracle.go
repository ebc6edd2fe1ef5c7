// Package oracle runs the node oracle (testdata/oracle/runtime.mjs) for
// differential tests and decodes its answers.
//
// It is test support: Node skips the calling test when node is missing,
// and fails it instead when the CI environment variable is set.
package oracle

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// Script returns the path of runtime.mjs, found from this file's location
// so tests work from any package directory.
func Script() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return filepath.Join("testdata", "oracle", "runtime.mjs")
	}
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	return filepath.Join(root, "testdata", "oracle", "runtime.mjs")
}

// Node returns the path of the node binary, or skips the test (fails it
// under CI) when there is none.
func Node(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node is required for differential tests in CI: %v", err)
		}
		t.Skip("node not installed: skipping the differential test")
	}
	return node
}

// DiffFlags registers the two flags of a package's differential test:
// -diff.seed, one seed to run after the test's fixed ones (0: none; see
// Seeds), and -diff.<unit>, how many random units each seed makes (n
// unless set). test names the test in the flags' help. Call it once per
// test binary, from a package-level var.
func DiffFlags(test, unit string, n int) (extraSeed *uint64, perSeed *int) {
	extraSeed = flag.Uint64("diff.seed", 0, "extra seed for "+test+" (0: only the fixed seeds)")
	perSeed = flag.Int("diff."+unit, n, "random "+unit+" per seed in "+test)
	return extraSeed, perSeed
}

// Seeds is the seeds a differential test runs: its fixed ones, then extra
// when not 0 (the extra seed a -*.seed flag of the test asked for).
func Seeds(extra uint64, fixed ...uint64) []uint64 {
	if extra == 0 {
		return fixed
	}
	return append(fixed[:len(fixed):len(fixed)], extra)
}

// Line is the oracle's verdict on one physical non-empty line.
type Line struct {
	Line    int    `json:"line"`
	Verdict string `json:"verdict"`
	Cost    *int64 `json:"cost"`
	Role    string `json:"role"`
	// Width is the UTF-16 length of the decoded line.
	Width int `json:"width"`
	// Pos is where V8's JSON.parse error message says the error is (UTF-16
	// units), when it says; Message is that error message.
	Pos     *int   `json:"pos"`
	Message string `json:"message"`
	// CostError is set, and Cost nil, for a valid line that JSON.stringify
	// cannot measure (a value nested some 4,000 levels deep overflows V8's
	// stack): the runtime loads it, and every trimContext throws.
	CostError string `json:"costError"`
	// IDs and ToolCallID are WTF-8 (lone surrogates kept), like line.Call.ID.
	IDs        []string `json:"-"`
	ToolCallID string   `json:"-"`
	HasIDs     bool     `json:"-"`

	RawIDs        []json.RawMessage `json:"ids"`
	RawToolCallID json.RawMessage   `json:"toolCallId"`
}

// Unit is a unit as the seed's trimContext builds it.
type Unit struct {
	StartLine int   `json:"startLine"`
	EndLine   int   `json:"endLine"`
	Messages  int   `json:"messages"`
	Chars     int64 `json:"chars"`
}

// Cut is trimContext's result for one budget: Error, or the rest.
type Cut struct {
	Budget        int64  `json:"budget"`
	Error         string `json:"error"`
	FirstKeptLine int    `json:"firstKeptLine"`
	KeptUnits     int    `json:"keptUnits"`
	KeptMessages  int    `json:"keptMessages"`
	KeptChars     int64  `json:"keptChars"`
}

// Budget is what loadSession and trimContext do with a file.
type Budget struct {
	// Width is the UTF-16 length of the whole decoded file; Physical the
	// number of physical lines (a last line without "\n" counts).
	Width    int64 `json:"width"`
	Physical int   `json:"physical"`

	Loads bool `json:"loads"`
	// When the file does not load: loadSession's message, the kind
	// (invalid-json or invalid-record) and the physical line.
	Error string `json:"error"`
	Kind  string `json:"kind"`
	Line  int    `json:"line"`
	// When it loads.
	EstimateError string `json:"estimateError"` // see Line.CostError; TotalChars is then 0
	Messages      int    `json:"messages"`
	TotalChars    int64  `json:"totalChars"`
	Units         []Unit `json:"units"`
	Cuts          []Cut  `json:"cuts"`
}

// File is the oracle's whole answer for one file.
type File struct {
	Lines  []Line `json:"lines"`
	Budget Budget `json:"budget"`
}

// Job asks for one file's verdicts and its cutoffs for some budgets.
type Job struct {
	Path    string  `json:"path"`
	Budgets []int64 `json:"budgets"`
}

// Lines runs `runtime.mjs lines path`.
func Lines(ctx context.Context, node, path string) ([]Line, error) {
	out, err := run(ctx, node, nil, Script(), "lines", path)
	if err != nil {
		return nil, err
	}
	lines, err := decodeAll[Line](out, "lines")
	if err != nil {
		return nil, err
	}
	for i := range lines {
		if err := lines[i].decodeStrings(); err != nil {
			return nil, err
		}
	}
	return lines, nil
}

// decodeAll decodes out, a stream of JSON values, as Ts; what names the
// output in an error.
func decodeAll[T any](out []byte, what string) ([]T, error) {
	var all []T
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var v T
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("oracle: decoding %s output: %w", what, err)
		}
		all = append(all, v)
	}
	return all, nil
}

// Batch runs `runtime.mjs batch` once for all jobs.
func Batch(ctx context.Context, node string, jobs []Job) ([]File, error) {
	list, err := json.Marshal(jobs)
	if err != nil {
		return nil, fmt.Errorf("oracle: encoding jobs: %w", err)
	}
	f, err := os.CreateTemp("", "oracle-jobs-*.json")
	if err != nil {
		return nil, fmt.Errorf("oracle: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(list); err != nil {
		f.Close()
		return nil, fmt.Errorf("oracle: writing jobs: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("oracle: writing jobs: %w", err)
	}
	out, err := run(ctx, node, nil, Script(), "batch", f.Name())
	if err != nil {
		return nil, err
	}
	var files []File
	if err := json.Unmarshal(out, &files); err != nil {
		return nil, fmt.Errorf("oracle: decoding batch output: %w", err)
	}
	if len(files) != len(jobs) {
		return nil, fmt.Errorf("oracle: %d answers for %d jobs", len(files), len(jobs))
	}
	for i := range files {
		for j := range files[i].Lines {
			if err := files[i].Lines[j].decodeStrings(); err != nil {
				return nil, err
			}
		}
	}
	return files, nil
}

// run runs node on script with args, and env added to the environment,
// and returns its standard output.
func run(ctx context.Context, node string, env []string, script string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("oracle: node %s %v: %w\n%s", filepath.Base(script), args, err, stderr.Bytes())
	}
	return out, nil
}

func (l *Line) decodeStrings() error {
	if l.RawIDs != nil {
		l.HasIDs = true
		for _, raw := range l.RawIDs {
			s, err := DecodeString(raw)
			if err != nil {
				return err
			}
			l.IDs = append(l.IDs, s)
		}
	}
	if len(l.RawToolCallID) > 0 && string(l.RawToolCallID) != "null" {
		s, err := DecodeString(l.RawToolCallID)
		if err != nil {
			return err
		}
		l.ToolCallID = s
	}
	return nil
}

// DecodeString decodes a JSON string literal as JSON.stringify writes it
// into WTF-8: a lone surrogate escape becomes its 3-byte generalized UTF-8
// form (which encoding/json would replace with U+FFFD).
func DecodeString(lit []byte) (string, error) {
	bad := func() (string, error) { return "", fmt.Errorf("oracle: bad string literal %q", lit) }
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return bad()
	}
	s := lit[1 : len(lit)-1]
	var b []byte
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			b = append(b, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return bad()
		}
		switch s[i+1] {
		case '"', '\\', '/':
			b = append(b, s[i+1])
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			u, ok := hex4(s, i+2)
			if !ok {
				return bad()
			}
			i += 6
			if utf16.IsSurrogate(rune(u)) && u < 0xdc00 {
				if lo, ok := hex4(s, i+2); ok && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' && lo >= 0xdc00 && lo <= 0xdfff {
					b = utf8.AppendRune(b, utf16.DecodeRune(rune(u), rune(lo)))
					i += 6
					continue
				}
			}
			b = appendWTF8(b, u)
			continue
		default:
			return bad()
		}
		i += 2
	}
	return string(b), nil
}

func hex4(s []byte, i int) (uint16, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s[i:i+4]), 16, 16)
	return uint16(v), err == nil
}

// appendWTF8 writes a BMP code unit, a lone surrogate included, as 1-3 bytes.
func appendWTF8(b []byte, u uint16) []byte {
	switch {
	case u < 0x80:
		return append(b, byte(u))
	case u < 0x800:
		return append(b, 0xc0|byte(u>>6), 0x80|byte(u&0x3f))
	}
	return append(b, 0xe0|byte(u>>12), 0x80|byte(u>>6&0x3f), 0x80|byte(u&0x3f))
}
