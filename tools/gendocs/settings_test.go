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

// TestHandEditedSettingsAreDrift: the schema and VS Code's settings are
// generated whole from the settings table; changing either by hand (a
// bound, a description) fails -check, and generating restores it.
func TestHandEditedSettingsAreDrift(t *testing.T) {
	for _, tc := range []struct{ path, old, new string }{
		{"schema/sessionls.schema.json", `"minimum": 1`, `"minimum": 2`},
		{"schema/sessionls.schema.json", `"maxItems": 64`, `"maxItems": 65`},
		{"editors/vscode/package.json", "`null` means no budget.", "`null` or 0 means no budget."},
		{"editors/vscode/package.json", `"from sessionls.toml (else o200k_base)"`, `"from the file"`},
		{"README.md", "| `strict` | `--strict` |", "| `strict` | `--strict`, `-s` |"},
	} {
		dir := copyTargets(t)
		path := filepath.Join(dir, filepath.FromSlash(tc.path))
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(orig, []byte(tc.old)) {
			t.Fatalf("%s does not contain %s", tc.path, tc.old)
		}
		if err := os.WriteFile(path, bytes.Replace(orig, []byte(tc.old), []byte(tc.new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := runGendocs(t, "-check", "-root", dir); code != 1 || !strings.Contains(stderr, tc.path+" is out of date") {
			t.Errorf("%s: -check after editing %s: exit %d, %s", tc.path, tc.old, code, stderr)
		}
		if code, _, stderr := runGendocs(t, "-root", dir); code != 0 {
			t.Fatalf("generate: exit %d, %s", code, stderr)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
			t.Errorf("%s: generating did not restore the file", tc.path)
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
