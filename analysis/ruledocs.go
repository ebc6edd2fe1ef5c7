package analysis

// rulesDoc is where each rule's documentation is published: docs/rules.md,
// generated from the registry (tools/gendocs), one section per code.
const rulesDoc = "https://github.com/sessionls/sessionls/blob/main/docs/rules.md"

// DocURL is the address of the rule's section of docs/rules.md, for
// editors (LSP codeDescription.href) and SARIF (helpUri), as ESLint and
// ruff link each finding to its rule.
func (r Rule) DocURL() string { return rulesDoc + "#" + r.Code }

// RuleDocURL is DocURL for a code, "" for a code not in the registry.
func RuleDocURL(code string) string {
	for _, r := range registry {
		if r.Code == code {
			return r.DocURL()
		}
	}
	return ""
}
