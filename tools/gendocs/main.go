// Command gendocs rewrites what the README, the JSON schema and the editor
// packages say about the finding codes and the settings, from the rule
// registry in package analysis and the settings table in package config:
// the code lists, schema/sessionls.schema.json (whole), VS Code's
// contributes.configuration entries for the settings editors may set, and
// the README's settings table. Only the marked regions change; the rest of
// every file stays byte for byte. `go generate ./analysis` runs it; with
// -check it changes nothing and fails when a file is out of date
// (TestGeneratedFilesUpToDate runs that check in `go test ./...`).
//
//	go run ./tools/gendocs [-check] [-root DIR]
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect/claude"
	"github.com/sessionls/sessionls/analysis/dialect/codex"
	"github.com/sessionls/sessionls/config"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// inputs are what the files are generated from.
type inputs struct {
	rules    []analysis.Rule
	settings []config.Setting
	dialects []dialectCodes
}

// dialectCodes are the finding codes a dialect other than seed reports,
// each with what it means for that format (its package's Codes).
type dialectCodes struct {
	name  string
	codes map[string]string
}

// dialectDocs are the dialects' codes, for the README's section on each.
func dialectDocs() []dialectCodes {
	return []dialectCodes{{"claude-code", claude.Codes()}, {"codex", codex.Codes()}}
}

func (in inputs) codes() []string {
	out := make([]string, len(in.rules))
	for i, r := range in.rules {
		out[i] = r.Code
	}
	return out
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gendocs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	check := fs.Bool("check", false, "change nothing; exit 1 when a file is out of date")
	root := fs.String("root", "", "the repository `DIR` (default: the nearest parent holding go.mod)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *root == "" {
		r, err := findRoot()
		if err != nil {
			fmt.Fprintf(stderr, "gendocs: %v\n", err)
			return 2
		}
		*root = r
	}
	changed, err := generate(*root, inputs{analysis.Rules(), config.SettingTable(), dialectDocs()}, !*check)
	if err != nil {
		fmt.Fprintf(stderr, "gendocs: %v\n", err)
		return 2
	}
	for _, f := range changed {
		if *check {
			fmt.Fprintf(stderr, "gendocs: %s is out of date; run go generate ./analysis\n", f)
		} else {
			fmt.Fprintf(stdout, "gendocs: wrote %s\n", f)
		}
	}
	if *check && len(changed) > 0 {
		return 1
	}
	return 0
}

// findRoot walks up from the working directory to the directory of go.mod.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the repository: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory; pass -root")
		}
		dir = parent
	}
}

// target is one generated file: rewrite returns its new contents.
type target struct {
	path    string // slash-separated, from the repository root
	rewrite func(src []byte, in inputs) ([]byte, error)
}

// Markers of the regions in markdown files (an HTML comment, invisible
// when rendered) and in Emacs Lisp.
const (
	mdBegin = "<!-- BEGIN GENERATED: finding codes (go generate ./analysis) -->"
	mdEnd   = "<!-- END GENERATED: finding codes -->"
	elBegin = ";; BEGIN GENERATED: finding codes (go generate ./analysis)\n"
	elEnd   = ";; END GENERATED: finding codes"
	// The README's settings table.
	settingsBegin = "<!-- BEGIN GENERATED: settings (go generate ./analysis) -->"
	settingsEnd   = "<!-- END GENERATED: settings -->"
	// The README's list of each dialect's codes: dialectBegin and
	// dialectEnd with the dialect's name.
	dialectBegin = "<!-- BEGIN GENERATED: %s codes (go generate ./analysis) -->"
	dialectEnd   = "<!-- END GENERATED: %s codes -->"
	// Vim help has no comments: the region runs from the sentence that
	// introduces the codes to the blank line before the next option.
	vimBegin = "(`sessionls rules` explains them):\n"
	vimEnd   = "\n\nfiles ~"
)

func targets() []target {
	return []target{
		{"README.md", both(both(region(mdBegin, mdEnd, readmeTable), region(settingsBegin, settingsEnd, settingsTable)),
			both(dialectRegion("claude-code"), dialectRegion("codex")))},
		{"schema/sessionls.schema.json", schemaFile},
		{"editors/README.md", region(mdBegin, mdEnd, func(in inputs) string {
			return "\n" + wrap(quoted(in.rules, "`"), 72, "  ") + "\n  "
		})},
		{"editors/vscode/README.md", region(mdBegin, mdEnd, func(in inputs) string {
			return strings.Join(quoted(in.rules, "`"), ", ")
		})},
		{"editors/vscode/package.json", packageJSON},
		{"editors/nvim/doc/sessionls.txt", region(vimBegin, vimEnd, func(in inputs) string {
			return wrap(quoted(in.rules, ""), 72, "    ") + "."
		})},
		{"editors/emacs/sessionls.el", region(elBegin, elEnd, elispCodes)},
		{"docs/rules.md", func(src []byte, in inputs) ([]byte, error) { return rulesDoc(src, in.rules) }},
	}
}

// generate brings every target up to date (writing only when write is
// set) and returns the paths whose contents differ from the generated
// ones.
func generate(root string, in inputs, write bool) ([]string, error) {
	var changed []string
	for _, t := range targets() {
		path := filepath.Join(root, filepath.FromSlash(t.path))
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", t.path, err)
		}
		out, err := t.rewrite(src, in)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.path, err)
		}
		if bytes.Equal(src, out) {
			continue
		}
		changed = append(changed, t.path)
		if write {
			if err := os.WriteFile(path, out, 0o644); err != nil {
				return nil, fmt.Errorf("writing %s: %w", t.path, err)
			}
		}
	}
	return changed, nil
}

// region replaces the text between begin and end, which must each occur
// exactly once, in that order, with what render returns.
func region(begin, end string, render func(inputs) string) func([]byte, inputs) ([]byte, error) {
	return func(src []byte, in inputs) ([]byte, error) {
		s := string(src)
		if n := strings.Count(s, begin); n != 1 {
			return nil, fmt.Errorf("want the marker %q once, found it %d times", begin, n)
		}
		if n := strings.Count(s, end); n != 1 {
			return nil, fmt.Errorf("want the marker %q once, found it %d times", end, n)
		}
		i := strings.Index(s, begin) + len(begin)
		j := strings.Index(s, end)
		if j < i {
			return nil, fmt.Errorf("the marker %q comes before %q", end, begin)
		}
		return []byte(s[:i] + render(in) + s[j:]), nil
	}
}

// both applies two rewrites to one file.
func both(a, b func([]byte, inputs) ([]byte, error)) func([]byte, inputs) ([]byte, error) {
	return func(src []byte, in inputs) ([]byte, error) {
		out, err := a(src, in)
		if err != nil {
			return nil, err
		}
		return b(out, in)
	}
}

func readmeTable(in inputs) string {
	rs := in.rules
	var b strings.Builder
	b.WriteString("\n| code | severity | fix | meaning |\n|---|---|---|---|\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.Code, r.Severity, r.Fix, strings.ReplaceAll(r.Summary, "|", `\|`))
	}
	return b.String()
}

// dialectRegion is the README's list of the codes the dialect name
// reports, in the registry's order: "- `code` (severity; fix: sometimes):
// what it means for that format".
func dialectRegion(name string) func([]byte, inputs) ([]byte, error) {
	return region(fmt.Sprintf(dialectBegin, name), fmt.Sprintf(dialectEnd, name), func(in inputs) string {
		var codes map[string]string
		for _, d := range in.dialects {
			if d.name == name {
				codes = d.codes
			}
		}
		var b strings.Builder
		b.WriteString("\n")
		for _, r := range in.rules {
			if meaning, ok := codes[r.Code]; ok {
				fmt.Fprintf(&b, "- `%s` (%s; fix: %s): %s\n", r.Code, r.SeverityIn(name), r.Fix, meaning)
			}
		}
		return b.String()
	})
}

// elispCodes is a defconst of (CODE . SUMMARY) pairs.
func elispCodes(in inputs) string {
	rs := in.rules
	var b strings.Builder
	b.WriteString("(defconst sessionls-codes\n  '(")
	for i, r := range rs {
		if i > 0 {
			b.WriteString("\n    ")
		}
		fmt.Fprintf(&b, "(%s . %s)", elispString(r.Code), elispString(r.Summary))
	}
	b.WriteString(")\n  \"The finding codes of sessionls, each with what it means.\nAny of them can go in `sessionls-checks'.\")\n")
	return b.String()
}

func elispString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

func quoted(rs []analysis.Rule, q string) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = q + r.Code + q
	}
	return out
}

// wrap joins words with ", " into lines of at most width columns (a
// longer word gets a line of its own), each line starting with indent.
func wrap(words []string, width int, indent string) string {
	return textfmt.Wrap(indent, strings.Join(words, ", "), width, indent)
}
