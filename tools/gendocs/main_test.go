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

// TestHandEditIsDrift edits a generated file by hand, as a person adding
// a code or changing a setting in one place would: -check fails naming the
// file and leaves it as it is, and generating restores it byte for byte.
// Every file's code list is edited (deep-nesting appears only in the
// generated region of each), and the settings the schema, VS Code's
// settings and the README's table are generated whole from (a bound, a
// description, a flag).
func TestHandEditIsDrift(t *testing.T) {
	type edit struct {
		path, old, new string
		once           bool // old must occur exactly once in the file
	}
	var edits []edit
	for _, tg := range targets() {
		edits = append(edits, edit{tg.path, "deep-nesting", "deep-nestin", true})
	}
	edits = append(edits,
		edit{"schema/sessionls.schema.json", `"minimum": 1`, `"minimum": 2`, false},
		edit{"schema/sessionls.schema.json", `"maxItems": 64`, `"maxItems": 65`, false},
		edit{"editors/vscode/package.json", "`null` means no budget.", "`null` or 0 means no budget.", false},
		edit{"editors/vscode/package.json", `"from sessionls.toml (else o200k_base)"`, `"from the file"`, false},
		edit{"README.md", "| `strict` | `--strict` |", "| `strict` | `--strict`, `-s` |", false},
	)
	for _, e := range edits {
		t.Run(e.path+" "+e.old, func(t *testing.T) {
			dir := copyTargets(t)
			path := filepath.Join(dir, filepath.FromSlash(e.path))
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(orig, []byte(e.old)); n == 0 || e.once && n != 1 {
				t.Fatalf("%s occurs %d times in %s; the test wants it (once: %v)", e.old, n, e.path, e.once)
			}
			edited := bytes.Replace(orig, []byte(e.old), []byte(e.new), 1)
			if err := os.WriteFile(path, edited, 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runGendocs(t, "-check", "-root", dir)
			if code != 1 || !strings.Contains(stderr, e.path+" is out of date") {
				t.Fatalf("-check after a hand edit: exit %d, stderr %q", code, stderr)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, edited) {
				t.Fatal("-check changed the file")
			}
			code, stdout, stderr := runGendocs(t, "-root", dir)
			if code != 0 || stdout != "gendocs: wrote "+e.path+"\n" {
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
	readJSON(t, filepath.Join(dir, "editors/vscode/package.json"), &pkg)
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

// TestNewSettingReachesEveryFile: a setting added to the table appears in
// the schema (top level and [[overrides]]), in VS Code's settings when
// editors may set it (after the others, before sessionls.trace.server)
// and in the README's table, with its old spellings.
func TestNewSettingReachesEveryFile(t *testing.T) {
	dir := copyTargets(t)
	settings := append(config.SettingTable(), config.Setting{
		Key: "new-setting", Kind: config.KindEnum, Default: "a",
		Values: []config.EnumValue{{Name: "a", Doc: "The a."}, {Name: "b", Doc: "The b."}},
		InFile: true, InOverride: true,
		Flag: "--new-setting", FlagAliases: []string{"--old-setting"},
		Editor: "newSetting",
		Doc:    "A new setting.",
	})
	changed, err := generate(dir, inputs{analysis.Rules(), settings, dialectDocs()}, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"README.md", "schema/sessionls.schema.json", "editors/vscode/package.json"}
	if strings.Join(changed, ",") != strings.Join(want, ",") {
		t.Errorf("changed %v, want %v", changed, want)
	}

	var schema struct {
		Properties map[string]struct {
			Ref   string `json:"$ref"`
			Items struct {
				Properties map[string]struct {
					Ref string `json:"$ref"`
				}
			}
		}
		Definitions map[string]struct {
			Description string
			Enum        []string
			Default     string
		}
	}
	readJSON(t, filepath.Join(dir, "schema/sessionls.schema.json"), &schema)
	if schema.Properties["new-setting"].Ref != "#/definitions/new-setting" ||
		schema.Properties["overrides"].Items.Properties["new-setting"].Ref != "#/definitions/new-setting" {
		t.Errorf("schema properties: %+v", schema.Properties)
	}
	d := schema.Definitions["new-setting"]
	if strings.Join(d.Enum, ",") != "a,b" || d.Default != "a" || !strings.Contains(d.Description, "`--old-setting`") {
		t.Errorf("schema definition: %+v", d)
	}

	raw, err := os.ReadFile(filepath.Join(dir, "editors/vscode/package.json"))
	if err != nil {
		t.Fatal(err)
	}
	i, j, k := bytes.Index(raw, []byte(`"sessionls.tokenizer"`)), bytes.Index(raw, []byte(`"sessionls.newSetting"`)), bytes.Index(raw, []byte(`"sessionls.trace.server"`))
	if i < 0 || j < i || k < j {
		t.Errorf("sessionls.newSetting is not between the generated settings and the extension's own (%d, %d, %d)", i, j, k)
	}
	var pkg struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]struct {
					Enum           []any
					EnumItemLabels []string
				}
			}
		}
	}
	readJSON(t, filepath.Join(dir, "editors/vscode/package.json"), &pkg)
	p := pkg.Contributes.Configuration.Properties["sessionls.newSetting"]
	if len(p.Enum) != 3 || p.Enum[2] != nil || p.EnumItemLabels[2] != "from sessionls.toml (else a)" {
		t.Errorf("sessionls.newSetting: %+v", p)
	}

	md, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if !bytes.Contains(md, []byte("| `new-setting` | `--new-setting` (old spelling: `--old-setting`) | `sessionls.newSetting` | `a`, `b`; default `a` | A new setting. |")) {
		t.Error("README.md has no row for new-setting")
	}
}

// TestPackageJSONSettingsTogether: the extension's own settings may not be
// written between the generated ones (they would be lost).
func TestPackageJSONSettingsTogether(t *testing.T) {
	src := []byte(`{"contributes": {"configuration": {"properties": {
  "sessionls.budget": {}, "sessionls.mine": {}, "sessionls.tokenizer": {}}}}}`)
	if _, err := packageJSON(src, current()); err == nil || !strings.Contains(err.Error(), "sessionls.mine is written between") {
		t.Errorf("got %v", err)
	}
	src = []byte(`{"contributes": {"configuration": {"properties": {"sessionls.path": {}}}}}`)
	if _, err := packageJSON(src, current()); err == nil {
		t.Error("no generated setting: no error")
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}
