package transport

import (
	"bytes"
	"strings"
	"testing"
)

// checkSplit checks that scanning and unescaping the contents of the
// literal `"`+content+`"`+tail in 2 to 7 runs gives what one run gives.
func checkSplit(t *testing.T, content, tail string) {
	t.Helper()
	b := []byte(`"` + content + `"` + tail)
	want := scanStr(b, 1, len(b))
	for n := 2; n <= 7; n++ {
		got := scanSplit(b, 1, n)
		if got.bad != want.bad {
			t.Fatalf("bad, %d runs: %q: got.bad = %v, want %v", n, content, got.bad, want.bad)
		}
		if got.quote != want.quote {
			t.Fatalf("closing quote, %d runs: %q: got.quote = %v, want %v", n, content, got.quote, want.quote)
		}
		if want.bad || want.quote < 0 {
			continue
		}
		if got.escaped != want.escaped {
			t.Fatalf("escaped, %d runs: %q: got.escaped = %v, want %v", n, content, got.escaped, want.escaped)
		}
		if got.grow != want.grow {
			t.Fatalf("grow, %d runs: %q: got.grow = %v, want %v", n, content, got.grow, want.grow)
		}
		if want.grow > 0 {
			continue // unescaped into new memory, in one run
		}
		lit := b[1:want.quote]
		one := bytes.Clone(lit)
		one = one[:unquoteOver(one)]
		split := bytes.Clone(lit)
		split = split[:unquoteSplit(split, n)]
		if want, got := string(one), string(split); got != want {
			t.Fatalf("unescaped, %d runs: %q: string(split) = %q, want %q", n, content, got, want)
		}
	}
}

// TestSplitRuns: runs begin only where a reading from the start arrives,
// whatever sits at the nominal boundaries: escapes, runs of backslashes,
// \u escapes and surrogate pairs, characters of every length, invalid
// UTF-8, the closing quote, bytes the grammar refuses.
func TestSplitRuns(t *testing.T) {
	pieces := []string{`\"`, `\\`, `\n`, `\/`, `é`, `🙏`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `\udc00\u0041`, "\xff", "\xe2\x82", `\\\\\\`, `\\\"`, `\u005c`, `\u0022`, "a"}
	for _, p := range pieces {
		for pad := range 12 {
			body := strings.Repeat("a", pad)
			for range 6 {
				body += p + strings.Repeat("b", pad%5)
			}
			checkSplit(t, body, `}`)
			checkSplit(t, body+`"`+body, `}`) // ends early; the rest is not the literal's
			checkSplit(t, body+"\x01"+body, `}`)
			checkSplit(t, body+`\x`+body, `}`)
			checkSplit(t, body+`\u12`, ``)
			checkSplit(t, strings.Repeat(`\\`, pad)+body, `}`)
		}
	}
	checkSplit(t, strings.Repeat(`\\`, 5000), `}`) // no run can begin: one run
	checkSplit(t, strings.Repeat(`\u0041`, 2000), `}`)
}

func FuzzSplitRuns(f *testing.F) {
	f.Add(`{\"role\":\"user\"}\n`, `}`)
	f.Add(`\ud83d\ude00 \ud800 \u0041`, ``)
	f.Add("\xff\xfe é \\\\\\\" x", `"}`)
	f.Fuzz(func(t *testing.T, content, tail string) {
		checkSplit(t, content, tail)
	})
}

// TestDecodeFastOpenSplit: a didOpen whose text is long enough to be
// checked and unescaped on every core decodes as the general path does.
func TestDecodeFastOpenSplit(t *testing.T) {
	var text strings.Builder
	for i := 0; text.Len() < 3*longString; i++ {
		text.WriteString(strings.Repeat("a", i%11))
		text.WriteString([]string{`\"`, `\\`, `\n`, `é`, `\u00e9`, `\ud83d\ude00`, `\\\\`, `\/\t`}[i%8])
	}
	body := openBody(`{"uri":"file:///big.jsonl","languageId":"jsonl","version":3,"text":"` + text.String() + `"}`)
	if !checkFastOpen(t, []byte(body)) {
		t.Fatal("checkFastOpen(t, []byte(body)) is false, want true")
	}
}
