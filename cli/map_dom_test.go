package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionls/sessionls/internal/transcript"
)

// mapDOMRequired: in CI (CI set) a missing browser fails the test.
func mapDOMRequired() bool { return os.Getenv("CI") != "" }

// needMapDOM returns node, Chromium and the puppeteer-core install of
// cli/testdata/map/install.sh. Without them it skips, saying how to
// install them; in CI it fails (.ci/run installs them first).
func needMapDOM(t *testing.T) (node, chromium, dir string) {
	t.Helper()
	missing := func(what string) {
		t.Helper()
		msg := what + "; run cli/testdata/map/install.sh (.ci/run does)"
		if mapDOMRequired() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	chromium = os.Getenv("CHROMIUM")
	if chromium == "" {
		if chromium, err = exec.LookPath("chromium"); err != nil {
			missing("chromium is not installed")
		}
	}
	cache := os.Getenv("SESSIONLS_CACHE")
	if cache == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			missing(fmt.Sprintf("no cache directory (set SESSIONLS_CACHE): %v", err))
		}
		cache = filepath.Join(d, "sessionls-ci")
	}
	dir = filepath.Join(cache, "map-dom")
	lock := readFile(t, filepath.Join("testdata", "map", "package-lock.json"))
	sum := sha256.Sum256(lock)
	marker, _ := os.ReadFile(filepath.Join(dir, ".complete"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "puppeteer-core", "package.json")); err != nil {
		missing("puppeteer-core is not installed in " + dir)
	}
	if strings.TrimSpace(string(marker)) != hex.EncodeToString(sum[:]) {
		missing("puppeteer-core in " + dir + " was not installed from the current cli/testdata/map/package-lock.json")
	}
	return node, chromium, dir
}

// TestMapDOM renders map pages in headless Chromium and checks the live
// DOM (cli/testdata/map/dom.mjs) against budget --format json on the same
// file and budget: the unit count, the cutoff at firstKeptLine (drawn at
// the first kept unit's left edge), the breakdown sums equal to
// totalChars and totalTokens, hovering, and nothing loaded from outside
// the page. With SESSIONLS_MAP_DOCS=1 it also saves docs/map.png.
func TestMapDOM(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	node, chromium, dir := needMapDOM(t)
	script, err := filepath.Abs(filepath.Join("testdata", "map", "dom.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	docsShot := ""
	if os.Getenv("SESSIONLS_MAP_DOCS") != "" {
		docsShot, _ = filepath.Abs(filepath.Join("..", "docs", "map.png"))
	}
	atRepoRoot(t)
	tmp := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(tmp, name)
		writeFile(t, p, data, 0o644)
		return p
	}
	var small bytes.Buffer
	if _, err := transcript.Write(&small, 300<<10, 3); err != nil {
		t.Fatal(err)
	}
	session := write("session.jsonl", small.Bytes())
	// More units than the page draws one by one: bins.
	many := write("many.jsonl", transcript.Session(9000, 5))

	cases := []struct {
		name string
		args []string
		shot string // where to save a screenshot
	}{
		{"session, budget", []string{"--max-chars", "120000", session}, docsShot},
		{"many units, budget", []string{"--max-chars", "2000000", many}, ""},
		{"tokens", []string{"--max-tokens", "300", sessionPath("units")}, ""},
		{"no budget", []string{sessionPath("clean")}, ""},
		{"does not load", []string{"--max-chars", "500", sessionPath("demo")}, ""},
		{"budget too small", []string{"--max-chars", "10", sessionPath("clean")}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pagePath := filepath.Join(tmp, strings.ReplaceAll(tc.name, " ", "_")+".html")
			if tc.shot != "" {
				// The picture names the file as a user would type it.
				t.Chdir(tmp)
				tc.args[len(tc.args)-1] = filepath.Base(session)
			}
			r := sessionls(t, append([]string{"map", "-o", pagePath}, tc.args...)...)
			if r.code == ExitError {
				t.Fatalf("map: %s", r.stderr)
			}
			bargs := tc.args
			if len(bargs) == 1 {
				bargs = append([]string{"--max-chars", "1000000000"}, bargs...) // budget needs one; the totals are the same
			}
			b := sessionls(t, append([]string{"budget", "--format", "json"}, bargs...)...)
			var j budgetJSON
			b.decodeJSON(t, &j)
			want := map[string]any{
				"units": len(j.Units), "firstKeptLine": 0, "totalChars": j.TotalChars,
				"totalTokens": j.TotalTokens, "loads": j.Error == nil || !strings.HasPrefix(*j.Error, "invalid session"),
			}
			if j.Cutoff != nil && len(tc.args) > 1 {
				want["firstKeptLine"] = j.Cutoff.FirstKeptLine
			}
			if !want["loads"].(bool) {
				// budget lists no units for a file that does not load; the
				// map shows its valid lines' units, which the text output
				// counts.
				want["units"] = countUnits(t, bargs)
			}
			raw, _ := json.Marshal(want)
			expect := filepath.Join(tmp, "expect.json")
			writeFile(t, expect, raw, 0o644)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			args := []string{script, pagePath, expect}
			if tc.shot != "" {
				args = append(args, tc.shot)
			}
			cmd := exec.CommandContext(ctx, node, args...)
			cmd.Env = append(os.Environ(), "MAP_DOM_DIR="+dir, "CHROMIUM="+chromium)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("dom.mjs: %v\n%s\nfound: %s", err, stderr.String(), stdout.String())
			}
			t.Logf("%s: %s", tc.name, strings.TrimSpace(stdout.String()))
		})
	}
}

// countUnits is the number of units of the valid lines of a file that
// does not load, from budget's text output ("N messages in U units").
func countUnits(t *testing.T, args []string) int {
	t.Helper()
	r := sessionls(t, append([]string{"budget"}, args...)...)
	var msgs, units int
	i := strings.Index(r.stdout, "would cost (invalid lines not counted): ")
	if i < 0 {
		t.Fatalf("budget's text output has no totals for the valid lines:\n%s", r.stdout)
	}
	s := r.stdout[i+len("would cost (invalid lines not counted): "):]
	if _, err := fmt.Sscanf(strings.ReplaceAll(s, ",", ""), "%d messages in %d units", &msgs, &units); err != nil {
		t.Fatalf("reading %q: %v", s, err)
	}
	return units
}
