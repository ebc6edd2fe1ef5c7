package lsp

import (
	"fmt"
	"net/url"
	"path"
	"strings"
)

// checkGlob reports a malformed glob (path.Match's syntax per segment, plus
// "**" as a whole segment for any number of directories).
func checkGlob(g string) error {
	if strings.TrimSpace(g) == "" {
		return fmt.Errorf("empty glob")
	}
	for _, seg := range strings.Split(strings.Trim(g, "/"), "/") {
		if seg == "**" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("glob %q: %w", g, err)
		}
	}
	return nil
}

// matchGlob reports whether the slash-separated path p matches glob g.
// A glob starting with "/" must match the whole path. A relative glob
// matches the path relative to one of roots (the workspace folders), or,
// when the path is under none of them, any trailing part of the path (so
// "sessions/*.jsonl" finds .../sessions/a.jsonl).
func matchGlob(g, p string, roots []string) bool {
	for _, alt := range expandBraces(g) {
		if matchOne(alt, p, roots) {
			return true
		}
	}
	return false
}

// expandBraces expands "{a,b}" alternatives (as VS Code globs have them):
// "**/*.{jsonl,log}" → "**/*.jsonl", "**/*.log". Nested braces expand from
// the innermost out; an unmatched brace stays literal.
func expandBraces(g string) []string {
	end := strings.IndexByte(g, '}')
	if end < 0 {
		return []string{g}
	}
	start := strings.LastIndexByte(g[:end], '{')
	if start < 0 {
		return []string{g}
	}
	var out []string
	for _, alt := range strings.Split(g[start+1:end], ",") {
		out = append(out, expandBraces(g[:start]+alt+g[end+1:])...)
	}
	return out
}

func matchOne(g, p string, roots []string) bool {
	gs := splitPath(g)
	ps := splitPath(p)
	if strings.HasPrefix(g, "/") {
		return matchSegs(gs, ps)
	}
	for _, root := range roots {
		rs := splitPath(root)
		if len(rs) <= len(ps) && equalSegs(rs, ps[:len(rs)]) {
			return matchSegs(gs, ps[len(rs):])
		}
	}
	for i := range ps {
		if matchSegs(gs, ps[i:]) {
			return true
		}
	}
	return false
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

func equalSegs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// matchSegs matches glob segments against path segments; "**" matches any
// number of segments, including none.
func matchSegs(gs, ps []string) bool {
	for len(gs) > 0 {
		if gs[0] == "**" {
			rest := gs[1:]
			for i := 0; i <= len(ps); i++ {
				if matchSegs(rest, ps[i:]) {
					return true
				}
			}
			return false
		}
		if len(ps) == 0 {
			return false
		}
		if ok, err := path.Match(gs[0], ps[0]); err != nil || !ok {
			return false
		}
		gs, ps = gs[1:], ps[1:]
	}
	return len(ps) == 0
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
