package lsp

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected results in testdata/golden/*.txtar")

// Golden files (testdata/golden/*.txtar), in the manner of gopls's marker
// tests. Each archive holds, after a comment saying what it shows:
//
//	settings.json   (optional) the initializationOptions
//	session.jsonl   the session file, opened as <archive name>.jsonl
//
// and the expected JSON result of each request, as the server sends it:
//
//	diagnostics.json     the diagnostics published on open
//	hover.json           textDocument/hover at column 0 of every line
//	documentSymbol.json  textDocument/documentSymbol
//	codeLens.json        textDocument/codeLens
//	codeAction.json      textDocument/codeAction with the cursor at the
//	                     start of every line
//
// "Every line" is every line the client sees: a lone '\r' ends one.
//
// `go test ./lsp -run Golden -update` rewrites the results from what the
// server answers; review the diff before committing it.

// goldenRequest is one request of a golden archive.
type goldenRequest struct {
	file    string
	method  string // "": the diagnostics published on open
	perLine bool   // one request per line of the session, answered as a list
}

// goldenRequests are the requests of a golden archive, in file order.
func goldenRequests() []goldenRequest {
	return []goldenRequest{
		{"diagnostics.json", "", false},
		{"hover.json", "textDocument/hover", true},
		{"documentSymbol.json", "textDocument/documentSymbol", false},
		{"codeLens.json", "textDocument/codeLens", false},
		{"codeAction.json", "textDocument/codeAction", true},
	}
}

func TestGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "golden", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("paths is empty, want some")
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			runGolden(t, path)
		})
	}
}

func runGolden(t *testing.T, path string) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range ar.Files {
		if _, ok := files[f.Name]; ok {
			t.Fatalf("%s: %s twice: files = %+v, want it without the key %q", path, f.Name, files, f.Name)
		}
		files[f.Name] = f.Data
	}
	session, ok := files["session.jsonl"]
	if !ok {
		t.Fatalf("%s has no session.jsonl: ok is false, want true", path)
	}
	var opts harnessOptions
	if s, ok := files["settings.json"]; ok {
		if err := json.Unmarshal(s, &opts.initOptions); err != nil {
			t.Fatalf("%s: settings.json: json.Unmarshal(s, &opts.initOptions): %v", path, err)
		}
	}

	h := startHarness(t, opts)
	name := strings.TrimSuffix(filepath.Base(path), ".txtar") + ".jsonl"
	uri := h.open(name, "jsonl", string(session))
	lines := int(clientPos(string(session), len(session)).Line) + 1
	if strings.HasSuffix(string(session), "\n") || strings.HasSuffix(string(session), "\r") {
		lines-- // the empty line after the last line break
	}

	got := map[string][]byte{}
	for _, req := range goldenRequests() {
		var result any
		switch {
		case req.method == "":
			result = h.client.lastDiagnostics(uri).Diagnostics
		case req.perLine:
			each := make([]json.RawMessage, lines)
			for i := range each {
				params := at(uri, i, 0)
				if req.method == "textDocument/codeAction" {
					pos := map[string]any{"line": i, "character": 0}
					params = map[string]any{"textDocument": textDoc(uri)["textDocument"],
						"range": map[string]any{"start": pos, "end": pos}, "context": map[string]any{"diagnostics": []any{}}}
				}
				h.call(req.method, params, &each[i])
			}
			result = each
		default:
			var raw json.RawMessage
			h.call(req.method, textDoc(uri), &raw)
			result = raw
		}
		b, err := json.MarshalIndent(result, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got[req.file] = append(b, '\n')
	}

	if *update {
		out := &txtar.Archive{Comment: ar.Comment}
		for _, name := range []string{"settings.json", "session.jsonl"} {
			if data, ok := files[name]; ok {
				out.Files = append(out.Files, txtar.File{Name: name, Data: data})
			}
		}
		for _, req := range goldenRequests() {
			out.Files = append(out.Files, txtar.File{Name: req.file, Data: got[req.file]})
		}
		if err := os.WriteFile(path, txtar.Format(out), 0o644); err != nil {
			t.Fatalf("os.WriteFile(path, txtar.Format(out), 0o644): %v", err)
		}
		return
	}
	for _, req := range goldenRequests() {
		want, ok := files[req.file]
		if !ok {
			t.Errorf("%s has no %s (run go test ./lsp -run Golden -update)", path, req.file)
			continue
		}
		if !sameJSON(t, want, got[req.file]) {
			t.Errorf("%s: %s differs from what the server answers (go test ./lsp -run Golden -update rewrites it):\n%s",
				path, req.file, lineDiff(string(want), string(got[req.file])))
		}
	}
}

// sameJSON compares two JSON texts whatever their layout.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var ca, cb bytes.Buffer
	if err := json.Compact(&ca, a); err != nil {
		t.Errorf("expected JSON: %v", err)
		return false
	}
	if err := json.Compact(&cb, b); err != nil {
		t.Fatalf("json.Compact(&cb, b): %v", err)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// lineDiff shows the lines of want and got from the first that differs,
// a few on each side: enough to see what changed in an indented result.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at line %d\n", i+1)
	for k := i; k < min(i+6, len(w)); k++ {
		fmt.Fprintf(&b, "- %s\n", w[k])
	}
	for k := i; k < min(i+6, len(g)); k++ {
		fmt.Fprintf(&b, "+ %s\n", g[k])
	}
	return b.String()
}
