package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
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
	require.Eventually(t, func() bool {
		h.client.mu.Lock()
		defer h.client.mu.Unlock()
		for _, r := range h.client.registrations {
			if r.Method == "workspace/didChangeWatchedFiles" {
				b, err := json.Marshal(r.RegisterOptions)
				require.NoError(t, err)
				return strings.Contains(string(b), `"**/sessionls.toml"`) && strings.Contains(string(b), `"**/.sessionls.toml"`)
			}
		}
		return false
	}, wait, time.Millisecond)

	a := h.openDoc("a.jsonl", "jsonl", clean)
	sub := h.openDoc("sub/b.jsonl", "jsonl", clean)
	deep := h.openDoc("sub/deep/c.jsonl", "jsonl", clean)
	// Each document gets its closest file; overrides are relative to it.
	require.Equal(t, int64(400), h.budget(a))
	require.Contains(t, h.lensTitles(a), "✂ budget 400")
	require.Equal(t, int64(500), h.budget(sub))
	require.Equal(t, int64(100000), h.budget(deep))
	for _, d := range h.client.lastDiagnostics(sub).Diagnostics {
		require.NotEqual(t, "budget-cutoff", d.Code, "disabled by sub/.sessionls.toml")
	}
	// The configuration's files select documents the editor's do not.
	h.openDoc("logs/x.log", "plaintext", clean)

	// An editor setting the user set wins; unset (null) defers to the file.
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"budget": 450}}})
	h.sync()
	require.Equal(t, int64(450), h.budget(a))
	require.Equal(t, int64(450), h.budget(deep))
	h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{"budget": nil}}})
	h.sync()
	require.Equal(t, int64(400), h.budget(a))
	// setBudget is the editor's value too; clearing it falls back to the file.
	h.call("workspace/executeCommand", map[string]any{"command": commandSetBudget, "arguments": []any{420}}, nil)
	require.Equal(t, int64(420), h.budget(a))
	h.call("workspace/executeCommand", map[string]any{"command": commandSetBudget, "arguments": []any{"off"}}, nil)
	require.Equal(t, int64(400), h.budget(a))

	// A changed file re-publishes the documents it governs and refreshes
	// the lenses.
	pubs, subPubs, refreshes := h.client.publications(a), h.client.publications(sub), h.client.refreshCount()
	h.changed("sessionls.toml", "budget = 300\n")
	require.Equal(t, int64(300), h.budget(a))
	require.Contains(t, h.lensTitles(a), "✂ budget 300")
	require.Greater(t, h.client.publications(a), pubs)
	require.Equal(t, subPubs, h.client.publications(sub), "sub/ has its own file: not re-published")
	require.Eventually(t, func() bool { return h.client.refreshCount() > refreshes }, wait, time.Millisecond)

	// A bad file: said once, naming file:line:col; the last good settings
	// stay.
	before := len(h.client.shownMessages())
	h.changed("sessionls.toml", "budget = 'lots'\n")
	h.changed("sessionls.toml", "budget = 'lots'\n")
	require.Equal(t, int64(300), h.budget(a))
	msgs := h.client.shownMessages()[before:]
	require.Len(t, msgs, 1, "%+v", msgs)
	require.Contains(t, msgs[0].Message, filepath.Join(h.root, "sessionls.toml")+":1:10: budget: want a whole number ≥ 1")
	require.Contains(t, msgs[0].Message, "keeping its last good settings")

	// Fixed: applied, nothing more said. Deleted: the defaults.
	h.changed("sessionls.toml", "budget = 200\n")
	require.Equal(t, int64(200), h.budget(a))
	require.Len(t, h.client.shownMessages(), before+1)
	require.NoError(t, os.Remove(filepath.Join(h.root, "sessionls.toml")))
	h.changed("other.txt", "")
	require.Equal(t, int64(200), h.budget(a), "a change to another file re-reads nothing")
	h.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{
		map[string]any{"uri": h.uri("sessionls.toml"), "type": 3},
	}})
	h.sync()
	require.Equal(t, int64(0), h.budget(a))
}

// TestConfigFileSavedWithoutWatching: a client that cannot watch files
// still sees a configuration file saved in the editor.
func TestConfigFileSavedWithoutWatching(t *testing.T) {
	h := startConfigHarness(t, map[string]string{"sessionls.toml": "budget = 400\n"}, false)
	a := h.openDoc("a.jsonl", "jsonl", readSession(t, "clean.jsonl"))
	require.Equal(t, int64(400), h.budget(a))
	h.sync()
	h.client.mu.Lock()
	require.Empty(t, h.client.registrations, "no dynamic registration without the capability")
	h.client.mu.Unlock()

	writeFile(t, filepath.Join(h.root, "sessionls.toml"), "budget = 250\n")
	h.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": h.uri("sessionls.toml")}})
	h.sync()
	require.Equal(t, int64(250), h.budget(a))
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
	require.Equal(t, filepath.Join(h.root, "sessionls.toml")+":1:1", source(a))
	require.Equal(t, filepath.Join(h.root, "sub", "sessionls.toml")+":5:1 ([[overrides]] #1)", source(deep))
	require.Equal(t, "", source(none), "no budget, no source")

	h.call("workspace/executeCommand", map[string]any{"command": "sessionls.setBudget", "arguments": []any{1234}}, nil)
	require.Equal(t, "editor setting sessionls.budget", source(a))
	require.Equal(t, "editor setting sessionls.budget", source(none))
}

// The server sees configuration files change on disk by itself: a client
// that reports nothing (Neovim 0.7) still gets a sessionls.toml written,
// changed and deleted outside the editor, in a directory above the
// document and in one that held none when the document was opened.
func TestConfigFilesPolled(t *testing.T) {
	clean := readSession(t, "clean.jsonl")
	h := startConfigHarness(t, map[string]string{"sub/readme.txt": "no configuration here yet\n"}, false)
	doc := h.openDoc("sub/deep/a.jsonl", "jsonl", clean)
	require.Equal(t, int64(0), h.budget(doc))
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
		{"the closer file deleted", func() { require.NoError(t, os.Remove(filepath.Join(h.root, "sub", ".sessionls.toml"))) }, 400},
		{"the last file deleted", func() { require.NoError(t, os.Remove(filepath.Join(h.root, "sessionls.toml"))) }, 0},
	}
	for _, st := range steps {
		st.do()
		require.Eventually(t, func() bool { return h.budget(doc) == st.budget }, wait, 20*time.Millisecond,
			"%s: the budget is %d, want %d", st.what, h.budget(doc), st.budget)
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
	require.NotContains(t, codes(), "budget-cutoff", "off by sessionls.toml")
	for _, name := range []string{"disable", "checks"} {
		h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{name: []any{"swept-message"}}}})
		h.sync()
		require.Contains(t, codes(), "budget-cutoff", "sessionls.%s wins over the file", name)
		h.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sessionls": map[string]any{name: []any{}}}})
		h.sync()
		require.NotContains(t, codes(), "budget-cutoff", "an empty sessionls.%s defers to the file", name)
	}
}

// A configuration file's errors are diagnostics on that file, at the
// positions they name, and go when it is fixed or deleted.
func TestConfigErrorsPublished(t *testing.T) {
	clean := readSession(t, "clean.jsonl")
	h := startConfigHarness(t, map[string]string{"sessionls.toml": "budget = 400\nbudgte = 3\n"}, true)
	toml := h.uri("sessionls.toml")
	h.openDoc("a.jsonl", "jsonl", clean)
	require.Eventually(t, func() bool { return h.client.lastDiagnostics(toml) != nil }, wait, time.Millisecond,
		"no diagnostics published for the bad sessionls.toml")
	ds := h.client.lastDiagnostics(toml).Diagnostics
	require.Len(t, ds, 1)
	require.Equal(t, "config", ds[0].Code)
	require.Equal(t, uint32(1), ds[0].Range.Start.Line, "the unknown key is on line 2")
	require.Contains(t, ds[0].Message, "budgte")
	require.Contains(t, ds[0].Message, "budget", "the nearest key is suggested")

	h.changed("sessionls.toml", "budget = 400\n")
	require.Eventually(t, func() bool { return len(h.client.lastDiagnostics(toml).Diagnostics) == 0 }, wait, time.Millisecond,
		"the fixed file keeps its diagnostics")

	h.changed("sessionls.toml", "budget = \"many\"\n")
	require.Eventually(t, func() bool { return len(h.client.lastDiagnostics(toml).Diagnostics) == 1 }, wait, time.Millisecond)
	require.NoError(t, os.Remove(filepath.Join(h.root, "sessionls.toml")))
	h.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": toml, "type": 3}}})
	h.sync()
	require.Eventually(t, func() bool { return len(h.client.lastDiagnostics(toml).Diagnostics) == 0 }, wait, time.Millisecond,
		"the deleted file keeps its diagnostics")
}
