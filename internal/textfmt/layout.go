package textfmt

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Wrap writes prefix then the words of text, in lines of at most width
// columns (a longer word gets a line of its own), the lines after the
// first starting with indent. A prefix holding line breaks is written as
// it is up to its last one, which starts the first line.
func Wrap(prefix, text string, width int, indent string) string {
	var b strings.Builder
	line := prefix
	if i := strings.LastIndexByte(prefix, '\n'); i >= 0 {
		b.WriteString(prefix[:i+1])
		line = prefix[i+1:]
	}
	fresh := true
	for _, w := range strings.Fields(text) {
		switch {
		case fresh:
			line += w
			fresh = false
		case len(line)+1+len(w) <= width:
			line += " " + w
		default:
			b.WriteString(line + "\n")
			line = indent + w
		}
	}
	b.WriteString(line)
	return b.String()
}

// JSON is json.Marshal without its HTML escapes: messages quote "<", "&"
// and ">" often, and people read the output.
func JSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
