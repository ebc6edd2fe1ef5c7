// Prints js-tiktoken's byte-pair ranks of one encoding in the form the
// tokens package embeds: for each rank from 0 up, one byte of length, then
// the token's bytes. Ranks must be dense (they are, for o200k_base and
// cl100k_base); a token longer than 255 bytes is an error.
//
// Usage: SESSIONLS_TOKENS_ORACLE=DIR node ranks.mjs ENCODING > FILE
//        node ranks.mjs ENCODING pattern    prints the pre-tokenizer pattern
// DIR is where testdata/oracle/tokens/install.sh installed js-tiktoken.
import { createRequire } from "node:module";
import { join } from "node:path";

const [encoding, what] = process.argv.slice(2);
const dir = process.env.SESSIONLS_TOKENS_ORACLE;
if (!dir) throw new Error("SESSIONLS_TOKENS_ORACLE is not set (run testdata/oracle/tokens/install.sh)");
const require = createRequire(join(dir, "package.json"));
const ranks = require(`js-tiktoken/ranks/${encoding}`);
const data = ranks.default ?? ranks;
if (what === "pattern") {
  process.stdout.write(data.pat_str);
  process.exit(0);
}
// The same reading as js-tiktoken's Tiktoken constructor.
const byRank = [];
for (const line of data.bpe_ranks.split("\n").filter(Boolean)) {
  const [, offsetStr, ...tokens] = line.split(" ");
  const offset = Number.parseInt(offsetStr, 10);
  tokens.forEach((t, i) => { byRank[offset + i] = Buffer.from(t, "base64"); });
}
const parts = [];
for (let r = 0; r < byRank.length; r++) {
  const t = byRank[r];
  if (t === undefined) throw new Error(`${encoding}: no token of rank ${r}`);
  if (t.length === 0 || t.length > 255) throw new Error(`${encoding}: token of rank ${r} has ${t.length} bytes`);
  parts.push(Buffer.from([t.length]), t);
}
process.stdout.write(Buffer.concat(parts));
