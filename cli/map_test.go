package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/internal/transcript"
)

// pageFacts is what a map page says, read from its markup (the Chromium
// test, cli/testdata/map, reads the same from the live DOM).
type pageFacts struct {
	units          int   // #units data-units
	binUnits       int   // the sum of the bins' data-units
	bins           int   // distinct data-bin values
	firstKeptLine  int   // #cutoff data-first-kept-line; 0: no cutoff drawn
	firstKeptBin   int   // data-line of the first kept bin; 0: none
	roleChars      int64 // the role rows' data-chars, summed
	roleTokens     int64
	toolChars      int64
	loadFailure    bool
	refusedMarkers int
}

var reAttr = regexp.MustCompile(`\s([a-z-]+)="([^"]*)"`)

func readPage(t *testing.T, page string) pageFacts {
	t.Helper()
	var f pageFacts
	seen := map[string]bool{}
	table := ""
	// Walk the tags in order, noting which table a row is in.
	tables := regexp.MustCompile(`<table id="(\w+)"|<tr\s[^>]*>|<(?:a|div|span)\s[^>]*>`)
	for _, m := range tables.FindAllStringSubmatch(page, -1) {
		if m[1] != "" {
			table = m[1]
			continue
		}
		attrs := map[string]string{}
		for _, a := range reAttr.FindAllStringSubmatch(m[0], -1) {
			attrs[a[1]] = a[2]
		}
		num := func(k string) int64 {
			n, err := strconv.ParseInt(attrs[k], 10, 64)
			if err != nil {
				t.Fatalf("%s=%q in %s", k, attrs[k], m[0])
			}
			return n
		}
		switch {
		case strings.Contains(m[0], `id="units"`):
			f.units = int(num("data-units"))
		case strings.Contains(m[0], `id="cutoff"`):
			f.firstKeptLine = int(num("data-first-kept-line"))
		case strings.Contains(m[0], `id="load-failure"`):
			f.loadFailure = true
		case strings.HasPrefix(m[0], `<a class="ref"`):
			f.refusedMarkers++
		case attrs["data-bin"] != "":
			if !seen[attrs["data-bin"]] {
				seen[attrs["data-bin"]] = true
				f.bins++
				if _, ok := attrs["data-units"]; !ok {
					t.Fatalf("the first piece of bin %s has no data-units: %s", attrs["data-bin"], m[0])
				}
				f.binUnits += int(num("data-units"))
				if attrs["data-kept"] == "true" && f.firstKeptBin == 0 {
					f.firstKeptBin = int(num("data-line"))
				}
			}
		case strings.HasPrefix(m[0], "<tr") && attrs["data-chars"] != "":
			switch table {
			case "roles":
				f.roleChars += num("data-chars")
				f.roleTokens += num("data-tokens")
			case "tools":
				f.toolChars += num("data-chars")
			}
		}
	}
	return f
}

// TestMapAgreesWithBudget: the page's unit count, cutoff and breakdown
// sums are budget --format json's units, firstKeptLine and totalChars
// (totalTokens), and both commands exit alike.
func TestMapAgreesWithBudget(t *testing.T) {
	atRepoRoot(t)
	dir := t.TempDir()
	big := filepath.Join(dir, "big.jsonl")
	writeFile(t, big, transcript.Session(6000, 3), 0o644)
	cases := [][]string{
		{"--max-chars", "100000", sessionPath("clean")},
		{"--max-chars", "300", sessionPath("clean")},
		{"--max-chars", "10", sessionPath("clean")},
		{"--max-chars", "500", sessionPath("demo")},
		{"--max-chars", "200", sessionPath("units")},
		{"--max-chars", "100", sessionPath("empty")},
		{"--max-chars", "1000", sessionPath("badrecords")},
		{"--max-chars", "150", sessionPath("crlf_ok")},
		{"--max-chars", "400000", big},
		{"--max-tokens", "300", sessionPath("units")},
		{"--tokens", "--max-chars", "600", sessionPath("units")},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			page := sessionls(t, append([]string{"map"}, args...)...)
			bud := sessionls(t, append([]string{"budget", "--format", "json"}, args...)...)
			if page.code != bud.code {
				t.Errorf("map exits %d, budget %d (map stderr %q)", page.code, bud.code, page.stderr)
			}
			var j budgetJSON
			if err := json.Unmarshal([]byte(bud.stdout), &j); err != nil {
				t.Fatal(err)
			}
			f := readPage(t, page.stdout)
			// budget's error for a file that does not load is the runtime's
			// own: the first invalid line's message.
			loads := j.Error == nil || !strings.HasPrefix(*j.Error, "invalid session")
			if f.loadFailure == loads {
				t.Errorf("load failure banner %v; budget's error %v", f.loadFailure, j.Error)
			}
			if loads {
				if f.units != len(j.Units) || f.binUnits != len(j.Units) {
					t.Errorf("page: %d units, bins hold %d; budget lists %d", f.units, f.binUnits, len(j.Units))
				}
				if f.roleChars != j.TotalChars {
					t.Errorf("roles sum to %d chars; totalChars %d", f.roleChars, j.TotalChars)
				}
			} else if f.binUnits != f.units {
				t.Errorf("bins hold %d units of %d", f.binUnits, f.units)
			}
			if j.TotalTokens != nil && f.roleTokens != *j.TotalTokens {
				t.Errorf("roles sum to %d tokens; totalTokens %d", f.roleTokens, *j.TotalTokens)
			}
			want := 0
			if j.Cutoff != nil {
				want = j.Cutoff.FirstKeptLine
			}
			if f.firstKeptLine != want || f.firstKeptBin != want {
				t.Errorf("cutoff drawn at line %d, first kept bin at line %d; budget's firstKeptLine %d", f.firstKeptLine, f.firstKeptBin, want)
			}
		})
	}
}

func TestMapOutput(t *testing.T) {
	atRepoRoot(t)
	dir := t.TempDir()

	// A terminal gets no HTML: a usage error with the way out.
	e, out, errb := testEnv("", nil)
	e.stdoutTTY = true
	r := runWith(t, e, out, errb, "map", sessionPath("clean"))
	if r.code != ExitError || !strings.Contains(r.stderr, "-o OUT.html") || r.stdout != "" {
		t.Errorf("on a terminal: code %d stdout %d bytes stderr %q", r.code, len(r.stdout), r.stderr)
	}

	// -o writes the page, stdout stays empty; no budget, no cutoff.
	outPath := filepath.Join(dir, "m.html")
	e, out, errb = testEnv("", nil)
	e.stdoutTTY = true
	r = runWith(t, e, out, errb, "map", "-o", outPath, sessionPath("clean"))
	page, err := os.ReadFile(outPath)
	if r.code != 0 || err != nil || r.stdout != "" {
		t.Fatalf("-o: code %d err %v stdout %q stderr %q", r.code, err, r.stdout, r.stderr)
	}
	if f := readPage(t, string(page)); f.firstKeptLine != 0 || f.units == 0 || !strings.Contains(string(page), "No budget") {
		t.Errorf("no budget: %+v", f)
	}
	if strings.Contains(string(page), "http://") || strings.Contains(string(page), "https://") || strings.Contains(string(page), " src=") {
		t.Error("the page refers to something outside itself")
	}

	// -o FILE FILE would destroy the session: refused, the file untouched.
	p := filepath.Join(dir, "s.jsonl")
	before, _ := os.ReadFile(sessionPath("clean"))
	writeFile(t, p, before, 0o644)
	r = sessionls(t, "map", "-o", p, p)
	after, _ := os.ReadFile(p)
	if r.code != ExitError || string(after) != string(before) {
		t.Errorf("-o FILE FILE: code %d, file changed %v, stderr %q", r.code, string(after) != string(before), r.stderr)
	}

	// A page that cannot be written: exit 2, and no temporary file left.
	r = sessionls(t, "map", "-o", filepath.Join(dir, "missing", "m.html"), sessionPath("clean"))
	if r.code != ExitError || !strings.Contains(r.stderr, "cannot write") {
		t.Errorf("unwritable -o: code %d stderr %q", r.code, r.stderr)
	}
	// Rewriting a page replaces it whole and leaves no temporary file.
	r = sessionls(t, "map", "--max-chars", "300", "-o", outPath, sessionPath("clean"))
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	if r.code != 0 {
		t.Errorf("rewrite: code %d stderr %q", r.code, r.stderr)
	}
	if fi, err := os.Stat(outPath); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("page mode %v, %v", fi.Mode(), err)
	}

	// stdin maps too; its links are in-page.
	e, out, errb = testEnv(string(before), nil)
	r = runWith(t, e, out, errb, "map", "--max-chars", "300", "-")
	if r.code != 0 || !strings.Contains(r.stdout, `href="#L`) || strings.Contains(r.stdout, "file://") {
		t.Errorf("stdin: code %d stderr %q", r.code, r.stderr)
	}
}

// TestMapPageSize: a session of very many units stays a small page, and
// every unit above the threshold is drawn on its own, at its line.
func TestMapPageSize(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "many.jsonl")
	var b strings.Builder
	var bigLines []int
	ln := 0
	for i := range 200000 {
		ln++
		if i%20000 == 7 {
			fmt.Fprintf(&b, `{"role":"user","content":"%s"}`+"\n", strings.Repeat("x", 50000))
			bigLines = append(bigLines, ln)
			continue
		}
		fmt.Fprintf(&b, `{"role":"user","content":"m%d"}`+"\n", i)
	}
	writeFile(t, p, []byte(b.String()), 0o644)
	r := sessionls(t, "map", "--max-chars", "1000000", p)
	if r.code != 0 {
		t.Fatalf("code %d stderr %q", r.code, r.stderr)
	}
	if len(r.stdout) > 5<<20 {
		t.Errorf("page of %d bytes for 200,000 units; want at most 5 MiB", len(r.stdout))
	}
	f := readPage(t, r.stdout)
	if f.units != 200000 || f.binUnits != 200000 || f.bins > 3*2000+2 {
		t.Errorf("%d units, bins hold %d, %d bins", f.units, f.binUnits, f.bins)
	}
	for _, l := range bigLines {
		if !strings.Contains(r.stdout, fmt.Sprintf(`data-line="%d" data-units="1"`, l)) {
			t.Errorf("the large unit at line %d has no bin of its own", l)
		}
	}
	t.Logf("200,000 units: %d bins, page %d bytes", f.bins, len(r.stdout))
}

// TestMapEscapes: names from the file are text, never markup.
func TestMapEscapes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, `a"<b>.jsonl`)
	evil := `\u003c/script\u003e\u003cscript\u003ealert(1)\u003c/script\u003e"'`
	data := `{"role":"assistant","content":"","toolCalls":[{"id":"1","name":"` + evil + `","input":null}]}` + "\n" +
		`{"role":"tool","toolCallId":"1","isError":false,"content":"x"}` + "\n" +
		`{"role":"user","content":` + "\n"
	writeFile(t, p, []byte(data), 0o644)
	r := sessionls(t, "map", "--max-chars", "1000", p)
	if r.code != ExitFindings {
		t.Errorf("code %d; want 1 for a file that does not load", r.code)
	}
	if strings.Count(r.stdout, "<script>") != 1 || strings.Contains(r.stdout, "alert(1)</script>") || strings.Contains(r.stdout, `<b>.jsonl`) {
		t.Errorf("a name from the file became markup")
	}
	if !strings.Contains(r.stdout, "This file does not load") {
		t.Error("no banner for a file that does not load")
	}
}
