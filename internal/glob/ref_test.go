package glob

import (
	"fmt"
	"path"
	"strings"
)

// The matcher the language server used before this package (lsp/glob.go at
// 515f86f): brace expansion into every combination, then a backtracking
// segment match. It is the reference the tests compare with, on patterns
// small enough for it; steps counts its work, to show what it costs.

type refMatcher struct{ steps int }

func refCheck(g string) error {
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

func (m *refMatcher) match(g, p string, roots []string) bool {
	for _, alt := range m.expand(g) {
		if m.matchOne(alt, p, roots) {
			return true
		}
	}
	return false
}

func (m *refMatcher) expand(g string) []string {
	m.steps++
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
		out = append(out, m.expand(g[:start]+alt+g[end+1:])...)
	}
	return out
}

func (m *refMatcher) matchOne(g, p string, roots []string) bool {
	gs := refSplit(g)
	ps := refSplit(p)
	if strings.HasPrefix(g, "/") {
		return m.matchSegs(gs, ps)
	}
	for _, root := range roots {
		rs := refSplit(root)
		if len(rs) <= len(ps) && strings.Join(rs, "/") == strings.Join(ps[:len(rs)], "/") {
			return m.matchSegs(gs, ps[len(rs):])
		}
	}
	for i := range ps {
		if m.matchSegs(gs, ps[i:]) {
			return true
		}
	}
	return false
}

func refSplit(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

func (m *refMatcher) matchSegs(gs, ps []string) bool {
	m.steps++
	for len(gs) > 0 {
		if gs[0] == "**" {
			rest := gs[1:]
			for i := 0; i <= len(ps); i++ {
				if m.matchSegs(rest, ps[i:]) {
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
