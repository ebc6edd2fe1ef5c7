package transcript

// The raw material of transcripts. Everything here is plain text; the
// generator escapes it. Lines deliberately carry quotes, backslashes, tabs,
// non-ASCII letters, CJK, guillemets, emoji (outside the BMP, so two UTF-16
// units each) and an ANSI escape, the things real tool output is full of.

var prompts = []string{
	`Fix the failing test in parser.go — it says "unexpected EOF". 🙏`,
	`Why does the build fail on Windows? The path is C:\Users\dev\src\app`,
	`Add a --verbose flag to the CLI and document it in README.md`,
	`Refactor the cache so it's safe for concurrent use; keep the API.`,
	`The résumé upload breaks for names like «Zoë Straße» — please look.`,
	`请帮我把这个函数改成并发安全的，并补上测试。`,
	`Run the linter and fix whatever it reports, then commit.`,
	`Can you explain what trimContext does with a budget of 100?`,
	"Rename `userID` to `userId` everywhere except the database layer.",
	`The JSON encoder emits "\u2028" raw; is that a problem for browsers?`,
	`Make the retry loop back off exponentially (max 30 s) 🚀`,
	`Tests pass locally but fail in CI with: exit status 2`,
}

var prose = []string{
	`Let me look at the file and run the tests.`,
	`I'll read the relevant files first.`,
	`The empty-input branch is wrong; I'll patch it.`,
	`Running the tests again to confirm the fix.`,
	`Searching for every use of the old name.`,
	`The failure comes from the path separator ("\\" on Windows).`,
	`Je vais vérifier la configuration — un instant.`,
	`好的，我先看一下代码结构。`,
	`All tests pass now. ✅`,
	`Done: the cache uses a sync.RWMutex and the API is unchanged.`,
}

var paths = []string{
	"parser.go", "internal/cache/cache.go", "cmd/app/main.go", "src/index.ts",
	"src/components/Résumé.tsx", "tests/test_upload.py", "README.md",
	`C:\Users\dev\src\app\main.go`, "docs/设计.md", "scripts/build.sh",
}

var cmds = []string{
	"go test ./...", "go vet ./... && staticcheck ./...", "npm test -- --watch=false",
	`pytest -q tests/ -k "upload and not slow"`, "git diff --stat", "ls -la",
	`grep -rn "TODO\|FIXME" src/`, "make build 2>&1 | tail -n 40",
}

var errTails = []string{
	"\nexit status 1",
	"\nFAIL\texample.com/parser\t0.012s",
	"\nError: Command failed with exit code 2: \"npm test\"",
	"\nTraceback (most recent call last):\n  File \"app.py\", line 3\nValueError: «invalid»",
}

var words = []string{
	"TODO: handle the empty case", "naïve but fine", "für später", "see issue #42",
	"见上文", "«important»", "🔥 hot path", "don't touch", `escape "quotes"`, `C:\tmp`,
}

var goSource = []string{
	"package parser",
	"",
	`import (`,
	"\t\"errors\"",
	"\t\"fmt\"",
	"\t\"strings\"",
	`)`,
	"// Parse reads one record; it returns io.ErrUnexpectedEOF on a short input.",
	"func Parse(s string) (*Record, error) {",
	"\tif s == \"\" {",
	"\t\treturn nil, fmt.Errorf(\"parse %q: %w\", s, io.ErrUnexpectedEOF)",
	"\t}",
	"\tfields := strings.Split(s, \"\\t\")",
	"\tfor i, f := range fields {",
	"\t\tif strings.HasPrefix(f, `\\\\`) {",
	"\t\t\tfields[i] = strings.TrimPrefix(f, \"\\\\\")",
	"\t\t}",
	"\t}",
	"\treturn &Record{Name: fields[0], Note: \"café ☕\"}, nil",
	"}",
	"var errEmpty = errors.New(\"empty «record»\")",
	"const greeting = \"こんにちは, 世界 🌍\"",
	"\tre := regexp.MustCompile(`^\\s*(\\w+)=\"([^\"]*)\"$`)",
	"\tfmt.Fprintf(w, \"%-10s\\t%5d\\n\", name, n)",
	"type Record struct {",
	"\tName string `json:\"name\"`",
	"\tNote string `json:\"note,omitempty\"`",
	"}",
}

var pySource = []string{
	"import json, re, sys",
	"",
	"def load(path: str) -> list[dict]:",
	"    \"\"\"Load a JSONL file; raise ValueError on a bad line.\"\"\"",
	"    out = []",
	"    with open(path, encoding=\"utf-8\") as f:",
	"        for n, line in enumerate(f, 1):",
	"            if not line.strip():",
	"                continue",
	"            try:",
	"                out.append(json.loads(line))",
	"            except json.JSONDecodeError as e:",
	"                raise ValueError(f\"line {n}: {e}\") from e",
	"    return out",
	"",
	"PATTERN = re.compile(r'^(?P<key>[\\w.]+)\\s*=\\s*\"(?P<val>.*)\"$')",
	"GREETING = 'Grüß Gott — ¿qué tal? 你好'",
	"print(\"\\tdone ✔\", file=sys.stderr)",
	"class Upload:",
	"    def __init__(self, name: str) -> None:",
	"        self.name = name.replace('\\\\', '/')",
}

var tsSource = []string{
	"export function parseSessionMessage(value: unknown): Message | undefined {",
	"  const item = record(value);",
	"  if (!item || typeof item.role !== \"string\") return undefined;",
	"  if (item.role === \"user\") return { role: \"user\", content: item.content };",
	"  return undefined;",
	"}",
	"const re = /^\\s*\"([^\"\\\\]|\\\\.)*\"\\s*$/u;",
	"console.log(`résumé: ${name} — «${title}»`);",
	"const emoji = \"👩‍💻 and 🧪\";",
	"\tthrow new Error(`invalid session JSON at line ${index + 1}`);",
	"import { readFile } from \"node:fs/promises\";",
	"type ToolCall = { id: string; name: string; input: unknown };",
}

var outputLines = []string{
	"ok  \texample.com/parser\t0.012s",
	"--- FAIL: TestParse (0.00s)",
	"    parser_test.go:12: got 0, want 3 — «naïve» input",
	"\x1b[31mFAIL\x1b[0m src/index.test.ts > parses \"quoted\" input",
	"total 48",
	"drwxr-xr-x  5 dev dev 4096 Nov 29 10:02 .",
	"-rw-r--r--  1 dev dev 1234 Nov 29 10:01 main.go",
	" 3 files changed, 41 insertions(+), 7 deletions(-)",
	"collected 12 items / 2 deselected",
	"tests/test_upload.py ..F.  [100%]",
	"E   AssertionError: assert 'Zoë' == 'Zoe'",
	"warning: unused variable `x` at src/lib.rs:3:9",
}

var sources = [][]string{goSource, pySource, tsSource, outputLines}
