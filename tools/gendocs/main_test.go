package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/config"
)

const repoRoot = "../.."

func current() inputs { return inputs{analysis.Rules(), config.SettingTable(), dialectDocs()} }

// TestGeneratedFilesUpToDate is the drift check CI runs with go test ./...:
// every generated region must match the rule registry.
func TestGeneratedFilesUpToDate(t *testing.T) {
	changed, err := generate(repoRoot, current(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range changed {
		t.Errorf("%s is out of date with the rule registry: run go generate ./analysis", f)
	}
}

// copyTargets copies every generated file into a temporary repository.
func copyTargets(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, tg := range targets() {
		b, err := os.ReadFile(filepath.Join(repoRoot, tg.path))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(tg.path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runGendocs(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestHandEditIsDrift edits each file's list by hand, as a person adding a
// code in one place would: -check fails naming the file, and generating
// restores the file byte for byte.
func TestHandEditIsDrift(t *testing.T) {
	for _, tg := range targets() {
		t.Run(tg.path, func(t *testing.T) {
			dir := copyTargets(t)
			path := filepath.Join(dir, filepath.FromSlash(tg.path))
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// deep-nesting appears only in the generated region of each.
			if n := bytes.Count(orig, []byte("deep-nesting")); n != 1 {
				t.Fatalf("deep-nesting occurs %d times; the test wants it once, in the region", n)
			}
			edited := bytes.Replace(orig, []byte("deep-nesting"), []byte("deep-nestin"), 1)
			if err := os.WriteFile(path, edited, 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runGendocs(t, "-check", "-root", dir)
			if code != 1 || !strings.Contains(stderr, tg.path+" is out of date") {
				t.Fatalf("-check after a hand edit: exit %d, stderr %q", code, stderr)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, edited) {
				t.Fatal("-check changed the file")
			}
			code, stdout, stderr := runGendocs(t, "-root", dir)
			if code != 0 || stdout != "gendocs: wrote "+tg.path+"\n" {
				t.Fatalf("generate: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
				t.Errorf("generating did not restore the file:\n%s", got)
			}
			if code, _, stderr := runGendocs(t, "-check", "-root", dir); code != 0 {
				t.Errorf("-check after generating: exit %d, %s", code, stderr)
			}
		})
	}
}

// TestEveryFileFollowsTheRegistry generates from a registry with a new
// rule: every file must change, and carry the new code.
func TestEveryFileFollowsTheRegistry(t *testing.T) {
	dir := copyTargets(t)
	rs := append(analysis.Rules(), analysis.Rule{Code: "new-check", Severity: analysis.SeverityInfo, Summary: `A "quoted" | piped \ summary.`})
	changed, err := generate(dir, inputs{rs, config.SettingTable(), dialectDocs()}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != len(targets()) {
		t.Errorf("changed %v, want every one of the %d files", changed, len(targets()))
	}
	for _, tg := range targets() {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(tg.path)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte("new-check")) {
			t.Errorf("%s does not list new-check", tg.path)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "editors/vscode/package.json"))
	var pkg struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]struct {
					Items struct {
						Enum             []string
						EnumDescriptions []string
					}
				}
			}
		}
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	items := pkg.Contributes.Configuration.Properties["sessionls.checks"].Items
	codes := append(analysis.Codes(), "new-check")
	if strings.Join(items.Enum, ",") != strings.Join(codes, ",") || len(items.EnumDescriptions) != len(codes) ||
		items.EnumDescriptions[len(codes)-1] != rs[len(rs)-1].Summary {
		t.Errorf("package.json sessionls.checks: enum %v, descriptions %q", items.Enum, items.EnumDescriptions)
	}
	el, _ := os.ReadFile(filepath.Join(dir, "editors/emacs/sessionls.el"))
	if !bytes.Contains(el, []byte(`("new-check" . "A \"quoted\" | piped \\ summary.")`)) {
		t.Error("sessionls.el does not escape the summary as a Lisp string")
	}
	md, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if !bytes.Contains(md, []byte(`A "quoted" \| piped \ summary.`)) {
		t.Error("README.md does not escape | in the table")
	}
}

func TestMarkersMustBeThere(t *testing.T) {
	rs := current()
	f := region("<!-- B -->", "<!-- E -->", func(inputs) string { return "x" })
	for _, tc := range []struct{ in, want string }{
		{"a<!-- B -->old<!-- E -->b", "a<!-- B -->x<!-- E -->b"},
		{"a<!-- E -->old<!-- B -->b", ""},
		{"no markers", ""},
		{"<!-- B --><!-- B --><!-- E -->", ""},
	} {
		got, err := f([]byte(tc.in), rs)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%q: no error, got %q", tc.in, got)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("%q: got %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := packageJSON([]byte(`{"contributes": {}}`), rs); err == nil {
		t.Error("package.json without the setting: no error")
	}
	if _, err := packageJSON([]byte(`{"sessionls.checks": {`), rs); err == nil {
		t.Error("invalid package.json: no error")
	}
	dir := t.TempDir()
	if code, _, stderr := runGendocs(t, "-check", "-root", dir); code != 2 || !strings.Contains(stderr, "README.md") {
		t.Errorf("a root without the files: exit %d, %s", code, stderr)
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		words []string
		width int
		want  string
	}{
		{[]string{"a"}, 10, "  a"},
		{[]string{"aa", "bb", "cc"}, 10, "  aa, bb,\n  cc"},
		{[]string{"aaaaaaaaaaaa", "b"}, 6, "  aaaaaaaaaaaa,\n  b"},
	} {
		if got := wrap(tc.words, tc.width, "  "); got != tc.want {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.words, tc.width, got, tc.want)
		}
	}
}
