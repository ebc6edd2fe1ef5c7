// Package dialecttest is the test scaffolding the dialects' tests share:
// a transcript made afresh by a corpus's gen.mjs (node's own appendFile),
// and findings put in a form a test compares. Tests only import it.
package dialecttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/internal/randjsonl/oracle"
)

// Generate runs node on corpus's gen.mjs with a temporary directory and
// args, and returns the file it wrote there; it skips the test where node
// is missing (oracle.Node).
func Generate(t testing.TB, corpus, file string, args ...string) []byte {
	t.Helper()
	node := oracle.Node(t)
	dir := t.TempDir()
	cmd := exec.Command(node, append([]string{filepath.Join(corpus, "gen.mjs"), dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen.mjs: %v\n%s", err, out)
	}
	return Read(t, dir, file)
}

// Read returns the file name of the corpus in dir.
func Read(t testing.TB, dir, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// LineCodes lists findings as "line:code".
func LineCodes(fs []analysis.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, strconv.Itoa(f.Line)+":"+f.Code)
	}
	return out
}

// OfCode is the findings of one code, in order.
func OfCode(fs []analysis.Finding, code string) []analysis.Finding {
	return where(fs, func(f analysis.Finding) bool { return f.Code == code })
}

// Errors is the findings of severity error, in order.
func Errors(fs []analysis.Finding) []analysis.Finding {
	return where(fs, func(f analysis.Finding) bool { return f.Severity == analysis.SeverityError })
}

func where(fs []analysis.Finding, keep func(analysis.Finding) bool) []analysis.Finding {
	var out []analysis.Finding
	for _, f := range fs {
		if keep(f) {
			out = append(out, f)
		}
	}
	return out
}
