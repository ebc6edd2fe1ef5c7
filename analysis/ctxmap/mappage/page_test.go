package mappage

import (
	"crypto/sha256"
	"encoding/base64"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/ctxmap"
)

func render(t *testing.T, text string, budget int64, o Options) string {
	t.Helper()
	doc := analysis.NewDocument(text, analysis.Options{Budget: budget})
	m, err := ctxmap.FromReport(doc.Report(), ctxmap.Config{Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Write(&b, m, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

const session = `{"role":"user","content":"hi"}
{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{}"}}]}
{"role":"tool","tool_call_id":"c1","content":"` + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" + `"}
{"role":"user","content":"thanks"}
`

// TestScriptHash: the page's CSP allows its one script by hash, and that
// hash is the script's as the page carries it (a browser or a webview
// would refuse a script whose bytes differ, and the page would go dead).
func TestScriptHash(t *testing.T) {
	page := render(t, session, 100, Options{Name: "s.jsonl", FileURL: "file:///tmp/s.jsonl"})
	scripts := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllStringSubmatch(page, -1)
	if len(scripts) != 1 {
		t.Fatalf("the page has %d inline scripts, want 1", len(scripts))
	}
	sum := sha256.Sum256([]byte(scripts[0][1]))
	want := "script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	meta := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	if meta == nil {
		t.Fatal("the page has no CSP meta tag")
	}
	csp := html.UnescapeString(meta[1]) // as the browser reads the attribute
	if !strings.Contains(csp, want) || strings.Contains(csp, "script-src 'unsafe-inline'") {
		t.Errorf("CSP %q does not allow exactly the page's script (%s)", csp, want)
	}
	if csp != CSP() {
		t.Errorf("the page's CSP %q is not CSP() %q", csp, CSP())
	}
	if !strings.HasPrefix(csp, "default-src 'none';") {
		t.Errorf("CSP %q does not start from default-src 'none'", csp)
	}
}

// TestFileURL: units link to the file's file:// URL; a URL of any other
// scheme (a client's URI is hostile input) links to #L<line> alone.
func TestFileURL(t *testing.T) {
	for _, tc := range []struct {
		url, want string
	}{
		{"file:///tmp/s.jsonl", `href="file:///tmp/s.jsonl#L3"`},
		{"javascript:alert(1)", `href="#L3"`},
		{"untitled:Untitled-1", `href="#L3"`},
		{"", `href="#L3"`},
	} {
		page := render(t, session, 0, Options{Name: "s", FileURL: tc.url})
		if !strings.Contains(page, tc.want) {
			t.Errorf("FileURL %q: no %s in the page", tc.url, tc.want)
		}
		if strings.Contains(page, "javascript:") {
			t.Errorf("FileURL %q: the page links to javascript:", tc.url)
		}
	}
	if got := FileURL("-"); got != "" {
		t.Errorf(`FileURL("-") = %q, want ""`, got)
	}
	if got := FileURL("/a b/s.jsonl"); got != "file:///a%20b/s.jsonl" {
		t.Errorf("FileURL = %q", got)
	}
}

// TestName: control characters of a name are shown as escapes.
func TestName(t *testing.T) {
	page := render(t, session, 0, Options{Name: "a\x1bb.jsonl"})
	if strings.Contains(page, "\x1b") || !strings.Contains(page, `a\x1bb.jsonl`) {
		t.Error("the page carries the name's control character")
	}
}
