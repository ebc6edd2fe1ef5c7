// Unit tests for src/format.ts (compiled to out/unit by `npm run test:unit`).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { statusText, statusTooltip, validateBudget, parseBudget, formatCount, setTomlBudget } = require("../../out/unit/format.js");

const base = { budget: null, totalChars: 12345, keptChars: null, firstKeptLine: null, messages: 42, loads: true, error: null };

test("statusText", async (t) => {
  const cases = [
    ["no budget", {}, "✂ 12,345 chars · no budget"],
    ["a cut", { budget: 8000, keptChars: 7912, firstKeptLine: 12, minBudget: 43 }, "✂ budget 8,000 keeps 7,912 chars"],
    ["everything fits", { budget: 1000000, keptChars: 12345, firstKeptLine: 1 }, "✂ budget 1,000,000 keeps 12,345 chars"],
    ["one char kept", { budget: 5, keptChars: 1, firstKeptLine: 1 }, "✂ budget 5 keeps 1 char"],
    ["does not load", { budget: 8000, loads: false, error: "invalid session JSON at line 3: x" }, "✂ budget 8,000 · file does not load"],
    [
      "too small",
      { budget: 42, error: "context budget cannot contain the smallest consistent message unit", minBudget: 1719 },
      "✂ budget 42 too small (needs ≥ 1,719)",
    ],
    ["too small, older server", { budget: 10, error: "context budget cannot contain the smallest consistent message unit" }, "✂ budget 10 too small"],
    ["no messages", { budget: 100, totalChars: 0, messages: 0, error: "context budget cannot be empty" }, "✂ budget 100 · no messages"],
    ["no budget, does not load", { loads: false, error: "x" }, "✂ 12,345 chars · no budget"],
    ["tokens, no budget", { tokenizer: "o200k_base", totalTokens: 3100 }, "✂ 12,345 chars · ≈ 3,100 tokens · no budget"],
    [
      "tokens, a cut",
      { budget: 8000, keptChars: 7912, firstKeptLine: 12, tokenizer: "o200k_base", totalTokens: 3100, keptTokens: 1980 },
      "✂ budget 8,000 keeps 7,912 chars · ≈ 1,980 tokens",
    ],
    ["one token kept", { budget: 5, keptChars: 1, firstKeptLine: 1, totalTokens: 1, keptTokens: 1 }, "✂ budget 5 keeps 1 char · ≈ 1 token"],
    ["tokens not counted", { tokenizer: "o200k_base", tokensError: "too long" }, "✂ 12,345 chars · no budget"],
    ["seed is not named", { dialect: "seed", dialectWhy: "set by flag" }, "✂ 12,345 chars · no budget"],
    ["another dialect is", { dialect: "claude-code", dialectWhy: "x" }, "✂ 12,345 chars · no budget · claude-code"],
  ];
  for (const [name, patch, want] of cases) {
    await t.test(name, () => assert.equal(statusText({ ...base, ...patch }), want));
  }
});

test("statusTooltip says why", () => {
  const tip = statusTooltip({ ...base, budget: 8000, loads: false, error: "invalid session JSON at line 3: x" });
  assert.match(tip, /42 messages, 12,345 chars in all/);
  assert.match(tip, /Budget 8,000: invalid session JSON at line 3: x/);
  assert.match(tip, /refuses to load/);
  const cut = statusTooltip({ ...base, budget: 8000, keptChars: 1, firstKeptLine: 12, messages: 1, totalChars: 1 });
  assert.match(cut, /1 message, 1 char in all/);
  assert.match(cut, /keeps 1 char from line 12/);
  const small = statusTooltip({ ...base, budget: 42, error: "context budget cannot contain the smallest consistent message unit", minBudget: 1719 });
  assert.match(small, /Budget 42: context budget cannot contain the smallest consistent message unit/);
  assert.match(small, /least budget that works is 1,719/);
  const fromToml = statusTooltip({ ...base, budget: 300, keptChars: 200, firstKeptLine: 4, budgetSource: "/repo/sessionls.toml:1:1" });
  assert.match(fromToml, /The budget comes from \/repo\/sessionls.toml:1:1\./);
  assert.doesNotMatch(statusTooltip(base), /comes from/);
  const toks = statusTooltip({ ...base, budget: 8000, keptChars: 7912, firstKeptLine: 12, tokenizer: "cl100k_base", totalTokens: 3100, keptTokens: 1980 });
  assert.match(toks, /42 messages, 12,345 chars, ≈ 3,100 tokens \(cl100k_base\) in all/);
  assert.match(toks, /Budget 8,000 keeps 7,912 chars \(≈ 1,980 tokens\) from line 12/);
  const tooLong = statusTooltip({ ...base, tokenizer: "o200k_base", tokensError: "cannot count the tokens: 40 MB" });
  assert.match(tooLong, /Tokens: cannot count the tokens: 40 MB/);
  assert.doesNotMatch(statusTooltip(base), /token/);
  const codex = statusTooltip({ ...base, dialect: "codex", dialectWhy: "auto (default), detected: line 1, the first line JSON.parse accepts, is a codex record" });
  assert.match(codex, /Read as codex: auto \(default\), detected: line 1, the first line JSON.parse accepts, is a codex record\./);
  assert.doesNotMatch(statusTooltip({ ...base, dialect: "seed", dialectWhy: "x" }), /Read as/);
});

test("validateBudget and parseBudget", async (t) => {
  const ok = [
    ["8000", 8000],
    [" 8000 ", 8000],
    ["8,000", 8000],
    ["1", 1],
    ["", null],
    ["   ", null],
  ];
  for (const [text, want] of ok) {
    await t.test(`accepts ${JSON.stringify(text)}`, () => {
      assert.equal(validateBudget(text), undefined);
      assert.equal(parseBudget(text), want);
    });
  }
  for (const text of ["0", "-5", "1.5", "1e3", "abc", "12 34", "99999999999999999999"]) {
    await t.test(`rejects ${JSON.stringify(text)}`, () => assert.equal(typeof validateBudget(text), "string"));
  }
});

test("formatCount uses en-US separators", () => {
  assert.equal(formatCount(0), "0");
  assert.equal(formatCount(999), "999");
  assert.equal(formatCount(1000), "1,000");
  assert.equal(formatCount(1234567), "1,234,567");
});

test("setTomlBudget keeps the file and sets only the top-level budget", () => {
  const cases = [
    ["replaced in place", "# mine\nbudget = 300\ndisable = []\n", 500, "# mine\nbudget = 500\ndisable = []\n"],
    ["added before the first table", "disable = []\n[[overrides]]\nfiles = [\"a/**\"]\nbudget = 9\n", 500,
      "disable = []\nbudget = 500\n[[overrides]]\nfiles = [\"a/**\"]\nbudget = 9\n"],
    ["added at the end", "# only a comment\n", 42, "# only a comment\nbudget = 42\n"],
    ["added to an empty file", "", 42, "budget = 42\n"],
    ["removed, the override's kept", "budget = 300\n[[overrides]]\nbudget = 9\n", null, "[[overrides]]\nbudget = 9\n"],
    ["CRLF kept", "budget = 1\r\nstrict = true\r\n", 2, "budget = 2\r\nstrict = true\r\n"],
  ];
  for (const [name, text, budget, want] of cases) {
    assert.equal(setTomlBudget(text, budget), want, name);
  }
});
