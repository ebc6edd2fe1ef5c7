// Prints, for every code point from U+0000 to U+10FFFF, one byte: the
// character classes of the pre-tokenizer patterns of o200k_base and
// cl100k_base that node's own regex engine (the one js-tiktoken runs, with
// the "u" flag) puts it in. Bits:
//   1  \p{L}
//   2  \p{N}
//   4  [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]   (o200k_base: a word's capitals)
//   8  [\p{Ll}\p{Lm}\p{Lo}\p{M}]         (o200k_base: a word's lowercase)
//  16  \s
// Surrogates (U+D800–U+DFFF) are tested as lone surrogates; valid UTF-8
// never holds them.
//
// Usage: node classes.mjs > FILE   (1,114,112 bytes)
const classes = [
  [1, /^\p{L}$/u],
  [2, /^\p{N}$/u],
  [4, /^[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]$/u],
  [8, /^[\p{Ll}\p{Lm}\p{Lo}\p{M}]$/u],
  [16, /^\s$/u],
];
const out = Buffer.alloc(0x110000);
for (let cp = 0; cp < 0x110000; cp++) {
  const s = String.fromCodePoint(cp);
  let bits = 0;
  for (const [bit, re] of classes) if (re.test(s)) bits |= bit;
  out[cp] = bits;
}
process.stdout.write(out);
