package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// configHarness is a server over net.Pipe whose documents live in a
// temporary tree with nested sessionls.toml files.
type configHarness struct {
	*harness
	root string
}

func startConfigHarness(t *testing.T, files map[string]string, watch bool) *configHarness {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		writeFile(t, filepath.Join(root, filepath.FromSlash(name)), body)
	}
	caps := defaultCapabilities()
	if watch {
		caps["workspace"].(map[string]any)["didChangeWatchedFiles"] = map[string]any{"dynamicRegistration": true}
	}
	return &configHarness{harness: startHarness(t, harnessOptions{capabilities: caps}), root: root}
}

func writeFile(t testing.TB, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatalf("os.MkdirAll(filepath.Dir(path), 0o755): %v", err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatalf("os.WriteFile(path, []byte(body), 0o644): %v", err)
	}
}

func (h *configHarness) uri(name string) protocol.DocumentURI {
	return protocol.DocumentURI("file://" + filepath.ToSlash(filepath.Join(h.root, filepath.FromSlash(name))))
}

// openDoc opens name with text and waits for its diagnostics.
func (h *configHarness) openDoc(name, languageID, text string) protocol.DocumentURI {
	h.t.Helper()
	return h.openURI(h.uri(name), languageID, text)
}

// budget is the budget sessionls/status reports for an open document (0:
// none).
func (h *configHarness) budget(uri protocol.DocumentURI) int64 {
	h.t.Helper()
	var res statusResult
	h.call("sessionls/status", map[string]any{"uri": uri}, &res)
	if res.Budget == nil {
		return 0
	}
	return *res.Budget
}

// lensTitles are the titles of the code lenses of uri.
func (h *configHarness) lensTitles(uri protocol.DocumentURI) string {
	h.t.Helper()
	var lenses []protocol.CodeLens
	h.call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lenses)
	var titles []string
	for _, l := range lenses {
		if l.Command != nil {
			titles = append(titles, l.Command.Title)
		}
	}
	return strings.Join(titles, "\n")
}

// changed writes a configuration file and tells the server, as a client
// watching files does.
func (h *configHarness) changed(name, body string) {
	h.t.Helper()
	writeFile(h.t, filepath.Join(h.root, filepath.FromSlash(name)), body)
	h.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{
		map[string]any{"uri": h.uri(name), "type": 2},
	}})
	h.sync()
}

func TestConfigFilesEndToEnd(t *testing.T) {
	clean := readSession(t, "clean.jsonl")
	h := startConfigHarness(t, map[string]string{
		"sessionls.toml": "budget = 400\n[[overrides]]\nfiles = [\"sub/deep/**\"]\nbudget = 100000\n",
		"sub/.sessionls.toml": "budget = 500\ndisable = [\"budget-cutoff\"]\n" +
			"[[overrides]]\nfiles = [\"deep/**\"]\nbudget = 100000\n",
		"logs/sessionls.toml": "files = [\"*.log\"]\n",
	}, true)

	// The server asks to watch configuration files.
	eventually(t, func() bool {
		h.client.mu.Lock()
		defer h.client.mu.Unlock()
		for _, r := range h.client.registrations {
			if r.Method == "workspace/didChangeWatchedFiles" {
				b, err := json.Marshal(r.RegisterOptions)
				if err != nil {
					t.Fatal(err)
				}
				return strings.Contains(string(b), `"**/sessionls.toml"`) && strings.Contains(string(b), `"**/.sessionls.toml"`)
			}
		}
		return false
	}, "the server registers a watcher for **/sessionls.toml and **/.sessionls.toml")

	a := h.openDoc("a.jsonl", "jsonl", clean)
	sub := h.openDoc("sub/b.jsonl", "jsonl", clean)
	deep := h.openDoc("sub/deep/c.jsonl", "jsonl", clean)
	// Each document gets its closest file; overrides are relative to it.
	if want, got := int64(400), h.budget(a); got != want {
		t.Fatalf("h.budget(a) = %v, want %v", got, want)
	}
	if got := h.lensTitles(a); !strings.Contains(got, "✂ budget 400") {
		t.Fatalf("h.lensTitles(a) = %q, want it to contain %q", got, "✂ budget 400")
	}
	if want, got := int64(500), h.budget(sub); got != want {
		t.Fatalf("h.budget(sub) = %v, want %v", got, want)
	}
	if want, got := int64(100000), h.budget(deep); got != want {
		t.Fatalf("h.budget(deep) = %v, want %v", got, want)
	}
	for _, d := range h.client.lastDiagnostics(sub).Diagnostics {
		if reflect.DeepEqual(d.Code, "budget-cutoff") {
			t.Fatalf("disabled by sub/.sessionls.toml: d.Code = %+v, want anything else", d.Code)
		}
	}
	// The configuration's files select documents the editor's do not.
	h.openDoc("logs/x.log", "plaintext", clean)

	// An editor setting the user set wins; unset (null) defers to the file.
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"budget": 450}}})
	h.sync()
	if want, got := int64(450), h.budget(a); got != want {
		t.Fatalf("h.budget(a) = %v, want %v", got, want)
	}
	if want, got := int64(450), h.budget(deep); got != want {
		t.Fatalf("h.budget(deep) = %v, want %v", got, want)
	}
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"budget": nil}}})
	h.sync()
	if want, got := int64(400), h.budget(a); got != want {
		t.Fatalf("h.budget(a) = %v, want %v", got, want)
	}
	// setBudget is the editor's value too; clearing it falls back to the file.
	h.call("workspace/executeCommand", map[string]any{"command": commandSetBudget, "arguments": []any{420}}, nil)
	if want, got := int64(420), h.budget(a); got != want {
		t.Fatalf("h.budget(a) = %v, want %v", got, want)
	}
	h.call("workspace/executeCommand", map[string]any{"command": commandSetBudget, "arguments": []any{"off"}}, nil)
	if want, got := int64(400), h.budget(a); got != want {
		t.Fatalf("h.budget(a) = %v, want %v", got, want)
	}

	// A changed file re-publishes the documents it governs and refreshes
	// the lenses.
	pubs, subPubs, refreshes := h.client.publications(a), h.client.publications(sub), h.client.refreshCount()
	h.changed("sessionls.toml", "budget = 300\n")
	if want, got := int64(300), h.budget(a); got != want {
		t.Fatalf("h.budget(a) = %v, want %v", got, want)
	}
	if got := h.lensTitles(a); !strings.Contains(got, "✂ budget 300") {
		t.Fatalf("h.lensTitles(a) = %q, want it to contain %q", got, "✂ budget 300")
	}
	if got := h.client.publications(a); got <= pubs {
		t.Fatalf("h.client.publications(a) = %v, want > %v", got, pubs)
	}
	if got := h.client.publications(sub); got != subPubs {
		t.Fatalf("sub/ has its own file: not re-published: h.client.publications(sub) = %v, want %v", got, subPubs)
	}
	eventually(t, func() bool { return h.client.refreshCount() > refreshes }, "h.client.refreshCount() > refreshes")

	// A bad file: said once, naming file:line:col; the last good settings
	// stay.
	before := len(h.client.shownMessages())
	h.changed("sessionls.toml", "budget = 'lots'\n")
	h.changed("sessionls.toml", "budget = 'lots'\n")
	if want, got := int64(300), h.budget(a); got != want {
		t.Fatalf("h.budget(a) = %v, want %v", got, want)
	}
	msgs := h.client.shownMessages()[before:]
	if len(msgs) != 1 {
		t.Fatalf("%+v: len(msgs) = %d, want %d: %+v", msgs, len(msgs), 1, msgs)
	}
	if want := filepath.Join(h.root, "sessionls.toml") + ":1:10: budget: want a whole number ≥ 1"; !strings.Contains(msgs[0].Message, want) {
		t.Fatalf("msgs[0].Message = %q, want it to contain %q", msgs[0].Message, want)
	}
	if !strings.Contains(msgs[0].Message, "keeping its last good settings") {
		t.Fatalf("msgs[0].Message = %q, want it to contain %q", msgs[0].Message, "keeping its last good settings")
	}

	// Fixed: applied, nothing more said. Deleted: the defaults.
	h.changed("sessionls.toml", "budget = 200\n")
	if want, got := int64(200), h.budget(a); got != want {
		t.Fatalf("h.budget(a) = %v, want %v", got, want)
	}
	if got, want := len(h.client.shownMessages()), before+1; got != want {
		t.Fatalf("len(h.client.shownMessages()) = %d, want %d", got, want)
	}
	if err := os.Remove(filepath.Join(h.root, "sessionls.toml")); err != nil {
		t.Fatalf(`os.Remove(filepath.Join(h.root, "sessionls.toml")): %v`, err)
	}
	h.changed("other.txt", "")
	if want, got := int64(200), h.budget(a); got != want {
		t.Fatalf("a change to another file re-reads nothing: h.budget(a) = %v, want %v", got, want)
	}
	h.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{
		map[string]any{"uri": h.uri("sessionls.toml"), "type": 3},
	}})
	h.sync()
	if want, got := int64(0), h.budget(a); got != want {
		t.Fatalf("h.budget(a) = %v, want %v", got, want)
	}
}

// TestConfigFileSavedWithoutWatching: a client that cannot watch files
// still sees a configuration file saved in the editor.
func TestConfigFileSavedWithoutWatching(t *testing.T) {
	h := startConfigHarness(t, map[string]string{"sessionls.toml": "budget = 400\n"}, false)
	a := h.openDoc("a.jsonl", "jsonl", readSession(t, "clean.jsonl"))
	if want, got := int64(400), h.budget(a); got != want {
		t.Fatalf("h.budget(a) = %v, want %v", got, want)
	}
	h.sync()
	h.client.mu.Lock()
	if len(h.client.registrations) != 0 {
		t.Fatalf("no dynamic registration without the capability: h.client.registrations = %+v, want empty", h.client.registrations)
	}
	h.client.mu.Unlock()

	writeFile(t, filepath.Join(h.root, "sessionls.toml"), "budget = 250\n")
	h.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": h.uri("sessionls.toml")}})
	h.sync()
	if want, got := int64(250), h.budget(a); got != want {
		t.Fatalf("h.budget(a) = %v, want %v", got, want)
	}
}

// sessionls/status says where each document's budget comes from: the key
// of its configuration file, an override's, or the editor's setting.
func TestStatusBudgetSource(t *testing.T) {
	clean := readSession(t, "clean.jsonl")
	h := startConfigHarness(t, map[string]string{
		"sessionls.toml":      "budget = 400\n",
		"sub/sessionls.toml":  "# the budget of sub/\n\n[[overrides]]\nfiles = [\"deep/**\"]\nbudget = 900\n",
		"none/sessionls.toml": "disable = [\"swept-message\"]\n",
	}, false)
	source := func(uri protocol.DocumentURI) string {
		t.Helper()
		var res statusResult
		h.call("sessionls/status", map[string]any{"uri": uri}, &res)
		if res.BudgetSource == nil {
			return ""
		}
		return *res.BudgetSource
	}
	a := h.openDoc("a.jsonl", "jsonl", clean)
	deep := h.openDoc("sub/deep/c.jsonl", "jsonl", clean)
	none := h.openDoc("none/d.jsonl", "jsonl", clean)
	if want, got := filepath.Join(h.root, "sessionls.toml")+":1:1", source(a); got != want {
		t.Fatalf("source(a) = %q, want %q", got, want)
	}
	if want, got := filepath.Join(h.root, "sub", "sessionls.toml")+":5:1 ([[overrides]] #1)", source(deep); got != want {
		t.Fatalf("source(deep) = %q, want %q", got, want)
	}
	if got := source(none); got != "" {
		t.Fatalf("no budget, no source: source(none) = %q, want %q", got, "")
	}

	h.call("workspace/executeCommand", map[string]any{"command": "sessionls.setBudget", "arguments": []any{1234}}, nil)
	if got := source(a); got != "editor setting sessionls.budget" {
		t.Fatalf("source(a) = %q, want %q", got, "editor setting sessionls.budget")
	}
	if got := source(none); got != "editor setting sessionls.budget" {
		t.Fatalf("source(none) = %q, want %q", got, "editor setting sessionls.budget")
	}
}

// The server sees configuration files change on disk by itself: a client
// that reports nothing (Neovim 0.7) still gets a sessionls.toml written,
// changed and deleted outside the editor, in a directory above the
// document and in one that held none when the document was opened.
func TestConfigFilesPolled(t *testing.T) {
	clean := readSession(t, "clean.jsonl")
	h := startConfigHarness(t, map[string]string{"sub/readme.txt": "no configuration here yet\n"}, false)
	doc := h.openDoc("sub/deep/a.jsonl", "jsonl", clean)
	if want, got := int64(0), h.budget(doc); got != want {
		t.Fatalf("h.budget(doc) = %v, want %v", got, want)
	}
	// Let a poll see the tree as it is before anything changes.
	time.Sleep(configPollInterval + 200*time.Millisecond)

	steps := []struct {
		what   string
		do     func()
		budget int64
	}{
		{"sessionls.toml created above the document", func() { writeFile(t, filepath.Join(h.root, "sessionls.toml"), "budget = 400\n") }, 400},
		{"a closer .sessionls.toml created", func() { writeFile(t, filepath.Join(h.root, "sub", ".sessionls.toml"), "budget = 500\n") }, 500},
		{"the closer file changed", func() { writeFile(t, filepath.Join(h.root, "sub", ".sessionls.toml"), "budget = 600000\n") }, 600000},
		{"the closer file changed to a value of the same size", func() { writeFile(t, filepath.Join(h.root, "sub", ".sessionls.toml"), "budget = 700000\n") }, 700000},
		{"the closer file deleted", func() {
			if err := os.Remove(filepath.Join(h.root, "sub", ".sessionls.toml")); err != nil {
				t.Fatalf(`os.Remove(filepath.Join(h.root, "sub", ".sessionls.toml")): %v`, err)
			}
		}, 400},
		{"the last file deleted", func() {
			if err := os.Remove(filepath.Join(h.root, "sessionls.toml")); err != nil {
				t.Fatalf(`os.Remove(filepath.Join(h.root, "sessionls.toml")): %v`, err)
			}
		}, 0},
	}
	for _, st := range steps {
		st.do()
		eventuallyEvery(t, 20*time.Millisecond, func() bool { return h.budget(doc) == st.budget }, "%s: the budget is %d, want %d: h.budget(doc) == st.budget", st.what, h.budget(doc), st.budget)
	}
}

// TestEditorDisableSpellings: turning checks off in the editor is
// sessionls.disable, as in the file and on the command line; the old
// sessionls.checks still works, and an unset (empty) list defers to the
// document's sessionls.toml.
func TestEditorDisableSpellings(t *testing.T) {
	clean := readSession(t, "clean.jsonl")
	h := startConfigHarness(t, map[string]string{"sessionls.toml": "budget = 400\ndisable = [\"budget-cutoff\"]\n"}, false)
	a := h.openDoc("a.jsonl", "jsonl", clean)
	codes := func() []string {
		t.Helper()
		var out []string
		for _, d := range h.client.lastDiagnostics(a).Diagnostics {
			out = append(out, d.Code.(string))
		}
		return out
	}
	if got := codes(); slices.Contains(got, "budget-cutoff") {
		t.Fatalf("off by sessionls.toml: codes() = %+v, want it not to contain %q", got, "budget-cutoff")
	}
	for _, name := range []string{"disable", "checks"} {
		h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{name: []any{"swept-message"}}}})
		h.sync()
		if got := codes(); !slices.Contains(got, "budget-cutoff") {
			t.Fatalf("sessionls.%s wins over the file: codes() = %+v, want it to contain %q", name, got, "budget-cutoff")
		}
		h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{name: []any{}}}})
		h.sync()
		if got := codes(); slices.Contains(got, "budget-cutoff") {
			t.Fatalf("an empty sessionls.%s defers to the file: codes() = %+v, want it not to contain %q", name, got, "budget-cutoff")
		}
	}
}

// A configuration file's errors are diagnostics on that file, at the
// positions they name, and go when it is fixed or deleted.
func TestConfigErrorsPublished(t *testing.T) {
	clean := readSession(t, "clean.jsonl")
	h := startConfigHarness(t, map[string]string{"sessionls.toml": "budget = 400\nbudgte = 3\n"}, true)
	toml := h.uri("sessionls.toml")
	h.openDoc("a.jsonl", "jsonl", clean)
	eventually(t, func() bool { return h.client.lastDiagnostics(toml) != nil }, "no diagnostics published for the bad sessionls.toml: h.client.lastDiagnostics(toml) != nil")
	ds := h.client.lastDiagnostics(toml).Diagnostics
	requireLen(t, "ds", ds, 1)
	if !reflect.DeepEqual(ds[0].Code, "config") {
		t.Fatalf("ds[0].Code = %+v, want %q", ds[0].Code, "config")
	}
	if want := uint32(1); ds[0].Range.Start.Line != want {
		t.Fatalf("the unknown key is on line 2: ds[0].Range.Start.Line = %v, want %v", ds[0].Range.Start.Line, want)
	}
	if !strings.Contains(ds[0].Message, "budgte") {
		t.Fatalf("ds[0].Message = %q, want it to contain %q", ds[0].Message, "budgte")
	}
	if !strings.Contains(ds[0].Message, "budget") {
		t.Fatalf("the nearest key is suggested: ds[0].Message = %q, want it to contain %q", ds[0].Message, "budget")
	}

	h.changed("sessionls.toml", "budget = 400\n")
	eventually(t, func() bool { return len(h.client.lastDiagnostics(toml).Diagnostics) == 0 }, "the fixed file keeps its diagnostics: len(h.client.lastDiagnostics(toml).Diagnostics) == 0")

	h.changed("sessionls.toml", "budget = \"many\"\n")
	eventually(t, func() bool { return len(h.client.lastDiagnostics(toml).Diagnostics) == 1 }, "len(h.client.lastDiagnostics(toml).Diagnostics) == 1")
	if err := os.Remove(filepath.Join(h.root, "sessionls.toml")); err != nil {
		t.Fatalf(`os.Remove(filepath.Join(h.root, "sessionls.toml")): %v`, err)
	}
	h.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": toml, "type": 3}}})
	h.sync()
	eventually(t, func() bool { return len(h.client.lastDiagnostics(toml).Diagnostics) == 0 }, "the deleted file keeps its diagnostics: len(h.client.lastDiagnostics(toml).Diagnostics) == 0")
}
