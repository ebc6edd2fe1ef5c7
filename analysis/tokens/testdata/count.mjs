// Counts raw text with js-tiktoken, for the differential tests of the
// tokens package: each line of FILE is a JSON string; the output has one
// line per input line, [o200k_base count, cl100k_base count] of the
// string's text, counted as ordinary text (encode(text, [], [])).
//
// Usage: SESSIONLS_TOKENS_ORACLE=DIR node count.mjs FILE
// DIR is where testdata/oracle/tokens/install.sh installed js-tiktoken.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const dir = process.env.SESSIONLS_TOKENS_ORACLE;
if (!dir) throw new Error("SESSIONLS_TOKENS_ORACLE is not set (run testdata/oracle/tokens/install.sh)");
const require = createRequire(join(dir, "package.json"));
const { getEncoding } = require("js-tiktoken");
const encs = ["o200k_base", "cl100k_base"].map((n) => getEncoding(n));
const out = [];
for (const line of readFileSync(process.argv[2], "utf8").split("\n")) {
  if (line === "") continue;
  const text = JSON.parse(line);
  out.push(JSON.stringify(encs.map((e) => e.encode(text, [], []).length)));
}
process.stdout.write(out.join("\n") + (out.length ? "\n" : ""));
