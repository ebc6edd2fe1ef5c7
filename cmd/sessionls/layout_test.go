package main

import (
	"go/build"
	"io/fs"

	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/sessionls/sessionls"

// layers ranks every package of the module: a package may import (outside
// its tests) only packages of a lower rank. It is the table of
// docs/architecture.md; a new package must be added here, in the layer
// that says what it is.
var layers = map[string]int{
	// helpers that know nothing of sessions
	"internal/textfmt":    0,
	"internal/glob":       0,
	"internal/atomicfile": 0,
	"internal/jsonscan":   0,
	"internal/blocklist":  0,
	// test and benchmark support
	"internal/transcript":       0,
	"internal/allocs":           0,
	"internal/lspframe":         0,
	"internal/testtree":         0,
	"internal/randjsonl":        0,
	"internal/randjsonl/oracle": 0,
	// the engine
	"analysis/line":   1,
	"analysis":        2,
	"analysis/fix":    3,
	"analysis/tokens": 3,
	"analysis/ctxmap": 3,
	// session formats other than the runtime's own (issue 21): what the
	// dialects share (damage codes' meanings; their tests' scaffolding);
	// each
	// dialect's reader, checks and fixes; then the registry that picks
	// one per file
	"analysis/dialect/shared":      3,
	"analysis/dialect/dialecttest": 3,
	"analysis/dialect/claude":      4,
	"analysis/dialect/codex":       4,
	"analysis/dialect":             5,
	// project settings; the context map's page (a renderer both front
	// ends share); a counting dialect for the front ends' tests
	"config":                       6,
	"analysis/ctxmap/mappage":      6,
	"analysis/dialect/dialectfake": 6,
	// the language server's connection: framing, router, lifecycle, the
	// in-place decoding of large documents (no feature)
	"lsp/transport": 7,
	// front ends
	"lsp": 8,
	"cli": 9,
	// commands and tools
	"cmd/sessionls": 10,
	"tools/gendocs": 10,
	"bench/gen":     10,
	"bench/lsp":     10,
}

// TestImportLayers: imports only run down the layers, so that the engine
// stays free of protocol and CLI code and internal/ holds only helpers.
func TestImportLayers(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "editors") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			t.Errorf("%s: %v", path, err)
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		seen[rel] = true
		rank, ok := layers[rel]
		if !ok {
			t.Errorf("package %s is in no layer: add it to layers in cmd/sessionls/layout_test.go and to docs/architecture.md", rel)
			return nil
		}
		for _, imp := range pkg.Imports {
			dep, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			depRank, known := layers[dep]
			if known && depRank >= rank {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must run down", rel, rank, dep, depRank)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var stale []string
	for p := range layers {
		if !seen[p] {
			stale = append(stale, p)
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("layers names packages that do not exist: %v", stale)
	}
}
