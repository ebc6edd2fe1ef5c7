package lsp

import (
	"net/url"
	"strings"

	"github.com/sessionls/sessionls/internal/glob"
)

// The globs of the files setting are internal/glob's: VS Code style, matched
// in time linear in pattern × path, with bounded pattern sizes and counts.

// checkGlob reports a glob that cannot be used, saying why.
func checkGlob(g string) error {
	_, err := glob.Compile(g)
	return err
}

// checkGlobs reports a files list that cannot be used: a bad glob, or more
// globs (or bytes of globs) than matching a path against them may cost.
func checkGlobs(globs []string) error {
	_, err := glob.CompileList(globs)
	return err
}

// matchGlob reports whether the slash-separated path p matches glob g.
// A glob starting with "/" must match the whole path. A relative glob
// matches the path relative to one of roots (the workspace folders), or,
// when the path is under none of them, any trailing part of the path (so
// "sessions/*.jsonl" finds .../sessions/a.jsonl). A glob that does not
// compile matches nothing (settings refuse such globs before they get
// here).
func matchGlob(g, p string, roots []string) bool {
	pat, err := glob.Compile(g)
	if err != nil {
		return false
	}
	return pat.Match(p, roots)
}

// uriPath is the decoded path of a URI ("file:///a/b%20c.jsonl" →
// "/a/b c.jsonl"); for a URI it cannot parse, the text after the scheme.
func uriPath(u string) string {
	if parsed, err := url.Parse(u); err == nil && parsed.Path != "" {
		return parsed.Path
	}
	if _, rest, ok := strings.Cut(u, ":"); ok {
		return rest
	}
	return u
}
