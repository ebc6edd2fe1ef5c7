// Unit tests for src/mapargs.ts (compiled to out/unit by `npm run test:unit`).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { revealLine, mapArgs } = require("../../out/unit/mapargs.js");

test("revealLine takes only {command: 'reveal', line: a positive whole number}", async (t) => {
  const cases = [
    ["a line", { command: "reveal", line: 12 }, 12],
    ["line 1", { command: "reveal", line: 1 }, 1],
    ["line 0", { command: "reveal", line: 0 }, undefined],
    ["negative", { command: "reveal", line: -3 }, undefined],
    ["fraction", { command: "reveal", line: 2.5 }, undefined],
    ["NaN", { command: "reveal", line: NaN }, undefined],
    ["past 2^53", { command: "reveal", line: 2 ** 53 }, undefined],
    ["a string", { command: "reveal", line: "12" }, undefined],
    ["another command", { command: "open", line: 12 }, undefined],
    ["null", null, undefined],
    ["a number", 12, undefined],
  ];
  for (const [name, msg, want] of cases) {
    await t.test(name, () => assert.equal(revealLine(msg), want));
  }
});

test("mapArgs: the budget and token settings as sessionls map flags, the file after --", () => {
  assert.deepEqual(mapArgs("/s/a.jsonl", "/t/m.html", null, false, null), ["map", "-o", "/t/m.html", "--", "/s/a.jsonl"]);
  assert.deepEqual(mapArgs("/s/a.jsonl", "/t/m.html", 8000, false, null), ["map", "--budget", "8000", "-o", "/t/m.html", "--", "/s/a.jsonl"]);
  assert.deepEqual(mapArgs("-x.jsonl", "/t/m.html", 0, true, null), ["map", "--tokens", "-o", "/t/m.html", "--", "-x.jsonl"]);
  assert.deepEqual(mapArgs("/s/a.jsonl", "/t/m.html", null, true, "cl100k_base"), ["map", "--tokenizer", "cl100k_base", "-o", "/t/m.html", "--", "/s/a.jsonl"]);
});
