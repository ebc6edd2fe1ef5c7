// The token oracle: what js-tiktoken counts for the text whose length is a
// message's character cost, JSON.stringify of the normalized message (the
// runtime's own parseSessionMessage, imported from ../runtime.mjs).
//
// Usage (FILE is read as raw bytes and decoded like readFile(path, "utf8")):
//   node tokens.mjs stringify FILE
//       one JSON object a non-empty physical line: {line, text} where text
//       is JSON.stringify(normalized message), or null for a line that
//       does not load (or that JSON.stringify cannot measure: deep nesting)
//   node tokens.mjs count FILE
//       the same, plus {o200k_base, cl100k_base}: js-tiktoken's token counts
//       of text (null when text is)
//   node tokens.mjs total FILE ENCODING
//       one JSON object {messages, totalChars, totalTokens}: the sum over the
//       file's messages, as `sessionls budget --tokens` reports it (for the
//       benchmark)
//
// js-tiktoken is not a dependency of the repository: it is resolved from
// the directory named by SESSIONLS_TOKENS_ORACLE (where install.sh put it
// with `npm ci` from this directory's package-lock.json).
//
// Special-token text such as "<|endoftext|>" is counted as ordinary text
// (encode(text, [], [])), as any user text sent to a model is.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { parseSessionMessage } from "../runtime.mjs";

function encoders(names) {
  const dir = process.env.SESSIONLS_TOKENS_ORACLE;
  if (!dir) throw new Error("SESSIONLS_TOKENS_ORACLE is not set (run testdata/oracle/tokens/install.sh)");
  const require = createRequire(join(dir, "package.json"));
  const { getEncoding } = require("js-tiktoken");
  return Object.fromEntries(names.map((n) => [n, getEncoding(n)]));
}

// texts yields {line, text} for every non-empty physical line.
function* texts(path) {
  const lines = readFileSync(path, "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] === "") continue;
    let text = null;
    try {
      const m = parseSessionMessage(JSON.parse(lines[i]));
      if (m !== undefined) text = JSON.stringify(m);
    } catch {
      // invalid JSON, or JSON.stringify overflowing its stack
    }
    yield { line: i + 1, text };
  }
}

const [mode, path, encoding] = process.argv.slice(2);
const out = [];
switch (mode) {
  case "stringify":
    for (const t of texts(path)) out.push(JSON.stringify(t));
    break;
  case "count": {
    const enc = encoders(["o200k_base", "cl100k_base"]);
    for (const t of texts(path)) {
      for (const n of Object.keys(enc)) t[n] = t.text === null ? null : enc[n].encode(t.text, [], []).length;
      out.push(JSON.stringify(t));
    }
    break;
  }
  case "total": {
    const enc = encoders([encoding])[encoding];
    let messages = 0, totalChars = 0, totalTokens = 0;
    for (const t of texts(path)) {
      if (t.text === null) throw new Error(`line ${t.line} does not load`);
      messages++;
      totalChars += t.text.length + 1;
      totalTokens += enc.encode(t.text, [], []).length;
    }
    out.push(JSON.stringify({ messages, totalChars, totalTokens }));
    break;
  }
  default:
    console.error("usage: node tokens.mjs stringify|count FILE | total FILE ENCODING");
    process.exit(2);
}
process.stdout.write(out.join("\n") + (out.length ? "\n" : ""));
