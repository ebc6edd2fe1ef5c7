#!/usr/bin/env node
// Drives a real VS Code (code-server in headless Chromium) with the sessionls
// extension installed, and checks what a person would see against what the
// sessionls CLI computes for the same text. Started by run.sh, which passes:
//   E2E_URL        code-server's address, e.g. http://127.0.0.1:41234/
//   E2E_WORKSPACE  the workspace folder (holds demo.jsonl and clean.jsonl)
//   E2E_OUT        where screenshots and scratch files go
//   SESSIONLS_BIN  the sessionls binary (the same one the .vsix bundles)
//   CHROMIUM       the browser (default /usr/bin/chromium)
"use strict";

const { spawnSync } = require("child_process");
const fs = require("fs");
const path = require("path");
const puppeteer = require("puppeteer-core");

const env = (name, fallback) => {
  const v = process.env[name] ?? fallback;
  if (v === undefined || v === "") {
    throw new Error(`${name} is not set (run this through test/run.sh)`);
  }
  return v;
};
const URL_BASE = env("E2E_URL");
const WORKSPACE = env("E2E_WORKSPACE");
const OUT = env("E2E_OUT");
const BIN = env("SESSIONLS_BIN");
const CHROMIUM = env("CHROMIUM", "/usr/bin/chromium");
const SETTINGS_FILE = path.join(WORKSPACE, ".vscode", "settings.json");
const STEP_TIMEOUT_MS = Number(process.env.E2E_STEP_TIMEOUT_MS || 30000);
const TOTAL_TIMEOUT_MS = Number(process.env.E2E_TOTAL_TIMEOUT_MS || 300000);

const t0 = Date.now();
const log = (...a) => console.log(`[e2e +${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The workspace settings, .vscode/settings.json, which steps change and
// then put back: workspaceSettings() is the file's text, or null when there
// is none, and restoreSettings puts that back (no file for null).
function workspaceSettings() {
  return fs.existsSync(SETTINGS_FILE) ? fs.readFileSync(SETTINGS_FILE, "utf8") : null;
}

// writeSettings writes the object s as the workspace settings.
function writeSettings(s) {
  fs.mkdirSync(path.dirname(SETTINGS_FILE), { recursive: true });
  fs.writeFileSync(SETTINGS_FILE, JSON.stringify(s, null, 2));
}

function restoreSettings(before) {
  if (before === null) {
    fs.rmSync(SETTINGS_FILE, { force: true });
  } else {
    fs.writeFileSync(SETTINGS_FILE, before);
  }
}

// ---------------------------------------------------------------- expected

function runCli(args) {
  const r = spawnSync(BIN, args, { encoding: "utf8", maxBuffer: 1 << 30 }); // big.jsonl's budget JSON is megabytes
  if (r.error) {
    throw new Error(`running ${BIN} ${args.join(" ")}: ${r.error.message}`);
  }
  // 0 clean, 1 findings or a refused file, 2 usage or I/O error.
  if (r.status !== 0 && r.status !== 1) {
    throw new Error(`${BIN} ${args.join(" ")} exited ${r.status}: ${r.stderr.trim()}`);
  }
  try {
    return JSON.parse(r.stdout);
  } catch (err) {
    throw new Error(`${BIN} ${args.join(" ")} printed no JSON (${err.message}): ${r.stdout.slice(0, 300)}`);
  }
}

const checkJSON = (file, budget, disable = []) =>
  runCli([
    "check",
    "--format",
    "json",
    ...(budget ? ["--budget", String(budget)] : []),
    ...(disable.length ? ["--disable", disable.join(",")] : []),
    file,
  ]);
const budgetJSON = (file, n) => runCli(["budget", "--max-chars", String(n), "--format", "json", file]);

const fmt = (n) => new Intl.NumberFormat("en-US").format(n);
const plural = (n, one, many) => `${fmt(n)} ${n === 1 ? one : many}`;
const lineRange = (a, b) => (a === b ? `line ${a}` : `lines ${a}–${b}`);
// The codes of a line the runtime refuses: JSON.parse's and the record
// rules' verdicts, and the causes of damage (analysis.IsRefusal).
const REFUSALS = new Set(["invalid-json", "invalid-record", "truncated-record", "interleaved-record", "zero-filled", "split-record"]);
const isLoadError = (f) => f.severity === "error" && REFUSALS.has(f.code);

/**
 * The facts about one text, from the CLI. For a file the runtime refuses,
 * `budget` reports no units; the server still shows the units of the valid
 * lines, which are exactly the units of the same file with the invalid lines
 * blanked (blank lines are skipped and lines keep their physical numbers).
 */
function factsFor(name, text, budget, disable = []) {
  const dir = path.join(OUT, "cli");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  // With a budget, the server also reports budget-cutoff (info; VS Code,
  // which shows the Unnecessary tag, gets it as the faded trimmed lines) or
  // budget-exceeded (error); `check --budget` reports the same.
  const findings = checkJSON(file, budget, disable);
  const invalid = new Set(findings.filter(isLoadError).map((f) => f.line));
  let unitsFile = file;
  if (invalid.size > 0) {
    const lines = text.split("\n").map((l, i) => (invalid.has(i + 1) ? "" : l));
    unitsFile = path.join(dir, `valid-lines-of-${name}`);
    fs.writeFileSync(unitsFile, lines.join("\n"));
  }
  const all = budgetJSON(unitsFile, 1e15);
  if (all.error) {
    throw new Error(`budget on the valid lines of ${name} failed: ${all.error}`);
  }
  const withBudget = budget ? budgetJSON(file, budget) : null;
  return {
    findings,
    invalidLines: [...invalid].sort((a, b) => a - b),
    units: all.units,
    totalChars: all.totalChars,
    messages: all.messages,
    withBudget,
    lines: text.split("\n"),
  };
}

/** The lenses the server should show: Map line → sorted titles. */
function expectedLenses(facts, budget) {
  const out = new Map();
  const add = (line, title) => out.set(line, [...(out.get(line) || []), title]);
  const units = facts.units;
  let fromNewest = 0;
  const from = new Array(units.length);
  for (let i = units.length - 1; i >= 0; i--) {
    fromNewest += units[i].chars;
    from[i] = fromNewest;
  }
  if (!budget) {
    const why = facts.invalidLines.length > 0 ? `the file does not load (line ${facts.invalidLines[0]} is invalid)` : "set a context budget";
    add(1, `Σ ${fmt(facts.totalChars)} chars · ${plural(facts.messages, "message", "messages")} · ${why}`);
  } else if (facts.invalidLines.length > 0) {
    add(1, `✂ budget ${fmt(budget)}: the file does not load (line ${facts.invalidLines[0]} is invalid)`);
  } else if (facts.withBudget.error) {
    const l = units.length ? units[units.length - 1].startLine : 1;
    // Too small for the newest unit: the lens adds the least budget that works.
    const least = facts.withBudget.minBudget;
    const tooSmall = facts.withBudget.error === "context budget cannot contain the smallest consistent message unit";
    add(l, `✂ budget ${fmt(budget)}: ${facts.withBudget.error}${tooSmall && least ? `; the least budget that works is ${fmt(least)}` : ""}`);
  } else {
    const c = facts.withBudget.cutoff;
    const last = units.length ? units[units.length - 1].endLine : c.firstKeptLine;
    // The messages of the units above the cut (blank lines are not messages).
    const trimmed = units.filter((u) => u.startLine < c.firstKeptLine).reduce((n, u) => n + u.messages, 0);
    add(
      c.firstKeptLine,
      `✂ budget ${fmt(budget)} · keeps ${lineRange(c.firstKeptLine, last)} · ${fmt(c.keptChars)} chars · ` +
        (trimmed === 0 ? "nothing trimmed" : trimmed === 1 ? "1 message above is trimmed" : `${plural(trimmed, "message", "messages")} above are trimmed`),
    );
  }
  units.forEach((u, i) => {
    add(u.startLine, `${fmt(u.chars)} chars · ${plural(u.messages, "message", "messages")} · ${fmt(from[i])} from newest`);
  });
  for (const [k, v] of out) {
    out.set(k, v.sort());
  }
  return out;
}

/** The status bar text (src/format.ts statusText), from the CLI's facts. */
function expectedStatus(facts, budget) {
  if (!budget) {
    return `✂ ${fmt(facts.totalChars)} chars · no budget`;
  }
  if (facts.invalidLines.length > 0) {
    return `✂ budget ${fmt(budget)} · file does not load`;
  }
  if (facts.withBudget.error) {
    if (facts.messages === 0) {
      return `✂ budget ${fmt(budget)} · no messages`;
    }
    return `✂ budget ${fmt(budget)} too small (needs ≥ ${fmt(facts.withBudget.minBudget)})`;
  }
  return `✂ budget ${fmt(budget)} keeps ${plural(facts.withBudget.cutoff.keptChars, "char", "chars")}`;
}

/**
 * Error, warning and info lines, as squiggles should mark them. VS Code
 * advertises the Unnecessary diagnostic tag, so the server sends
 * budget-cutoff as the faded trimmed lines (expectedFaded), not as an info
 * squiggle on the first kept line.
 */
function expectedSquiggles(findings) {
  const shown = findings.filter((f) => f.code !== "budget-cutoff");
  const lines = (sev) => [...new Set(shown.filter((f) => f.severity === sev).map((f) => f.line))].sort((a, b) => a - b);
  return { error: lines("error"), warning: lines("warning"), info: lines("info") };
}

/** The lines drawn faded: those above the first kept line (non-empty: an empty line has no text to fade). */
function expectedFaded(facts) {
  const cut = facts.findings.find((f) => f.code === "budget-cutoff");
  if (!cut || cut.line <= 1) {
    return [];
  }
  const out = [];
  for (let l = 1; l < cut.line; l++) {
    if (facts.lines[l - 1].replace(/\r$/, "") !== "") {
      out.push(l);
    }
  }
  return out;
}

// ---------------------------------------------------------------- the page

/** Reads the active editor: line tops, lenses by line, squiggle lines. */
async function readEditor(page) {
  return page.evaluate(() => {
    const group = document.querySelector(".editor-group-container.active") || document;
    const editor = group.querySelector(".editor-instance .monaco-editor") || group.querySelector(".monaco-editor");
    if (!editor) {
      return null;
    }
    const nums = [...editor.querySelectorAll(".margin-view-overlays .line-numbers")]
      .map((e) => ({ line: Number(e.textContent.trim()), top: e.getBoundingClientRect().top, h: e.getBoundingClientRect().height }))
      .filter((n) => Number.isFinite(n.line) && n.line > 0)
      .sort((a, b) => a.top - b.top);
    const lineAt = (top) => {
      let best = null;
      for (const n of nums) {
        if (Math.abs(n.top - top) < n.h / 2 && (!best || Math.abs(n.top - top) < Math.abs(best.top - top))) {
          best = n;
        }
      }
      return best ? best.line : null;
    };
    // A lens sits in a view zone just above its line: its line is the first
    // line whose top is at or below the lens's bottom.
    const lineBelow = (bottom) => {
      const n = nums.find((x) => x.top >= bottom - 3);
      return n ? n.line : null;
    };
    const lenses = {};
    for (const d of editor.querySelectorAll(".codelens-decoration")) {
      const r = d.getBoundingClientRect();
      const titles = [...d.children].map((c) => c.textContent.replace(/\u00a0/g, " ").trim()).filter((t) => t !== "" && t !== "|");
      if (titles.length === 0) {
        continue;
      }
      const line = lineBelow(r.bottom);
      lenses[line] = [...(lenses[line] || []), ...titles];
    }
    const squiggles = { error: [], warning: [], info: [] };
    for (const sev of Object.keys(squiggles)) {
      const set = new Set();
      for (const s of editor.querySelectorAll(`.view-overlays .squiggly-${sev}`)) {
        const r = s.getBoundingClientRect();
        // A squiggle fills its line's overlay row: same top as the line.
        set.add(lineAt(r.top));
      }
      squiggles[sev] = [...set].sort((a, b) => a - b);
    }
    // Text faded by an Unnecessary-tagged diagnostic: inline decorations in
    // the line's text.
    const faded = new Set();
    for (const s of editor.querySelectorAll(".view-lines .squiggly-inline-unnecessary")) {
      const r = s.getBoundingClientRect();
      faded.add(lineAt(r.top));
    }
    const decorations = [...editor.querySelectorAll(".codelens-decoration")].filter((d) => d.textContent.trim() !== "").length;
    return { lenses, squiggles, faded: [...faded].sort((a, b) => a - b), lines: nums.length, visible: nums.map((n) => n.line), decorations };
  });
}

async function statusBarText(page) {
  return page.evaluate(() => {
    const items = [...document.querySelectorAll(".statusbar-item")].filter((e) => e.offsetParent !== null);
    const ours = items.find((e) => (e.id || "").includes("sessionls.status")) || items.find((e) => e.textContent.includes("✂"));
    return ours ? ours.textContent.replace(/\s+/g, " ").trim() : null;
  });
}

async function problemsText(page) {
  return page.evaluate(() => {
    const panel = document.querySelector(".markers-panel");
    if (!panel) {
      return null;
    }
    return [...panel.querySelectorAll(".monaco-list-row")].map((r) => r.textContent.replace(/\s+/g, " ").trim()).join("\n");
  });
}

let checksPassed = 0;

/** Polls check() until it returns {ok: true}; fails with its last detail. */
async function waitUntil(what, check, timeout = STEP_TIMEOUT_MS) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await check();
    } catch (err) {
      last = { ok: false, detail: `error: ${err.message}` };
    }
    if (last.ok) {
      checksPassed++;
      log(`ok: ${what}`);
      return last;
    }
    if (Date.now() > end) {
      throw new Error(`timed out after ${timeout / 1000}s waiting for ${what}\n${last.detail}`);
    }
    await sleep(250);
  }
}

const byLine = (entries) =>
  entries
    .sort((a, b) => Number(a[0]) - Number(b[0]))
    .map(([l, t]) => `line ${l}: ${[...t].sort().join(" | ")}`);
const sameLenses = (want, got) => {
  const w = byLine([...want.entries()]);
  const g = byLine(Object.entries(got));
  return { ok: JSON.stringify(w) === JSON.stringify(g), detail: `want:\n  ${w.join("\n  ")}\ngot:\n  ${g.join("\n  ")}` };
};

async function chord(page, ...keys) {
  for (const k of keys.slice(0, -1)) {
    await page.keyboard.down(k);
  }
  await page.keyboard.press(keys[keys.length - 1]);
  for (const k of keys.slice(0, -1).reverse()) {
    await page.keyboard.up(k);
  }
}

/** True when the quick input holds exactly `typed` and its focused row is `text`. */
async function quickInputReady(page, typed, text) {
  return page.evaluate(
    (typed, t) => {
      const w = document.querySelector(".quick-input-widget");
      if (!w || w.style.display === "none") {
        return false;
      }
      const input = w.querySelector(".quick-input-box input");
      const value = input ? input.value.replace(/^>\s*/, "") : "";
      const row = w.querySelector(".monaco-list-row.focused");
      return value === typed && !!row && (row.getAttribute("aria-label") || row.textContent).includes(t);
    },
    typed,
    text,
  );
}

async function openFile(page, name) {
  await chord(page, "Control", "KeyP");
  await page.waitForSelector(".quick-input-widget .quick-input-box input", { visible: true });
  await page.keyboard.type(name);
  await waitUntil(`quick open selects ${name}`, async () => ({ ok: await quickInputReady(page, name, name), detail: "" }));
  await page.keyboard.press("Enter");
  await waitUntil(`${name} is the active editor`, async () => {
    const title = await page.evaluate(() => document.querySelector(".tabs-container .tab.active")?.getAttribute("aria-label") || "");
    return { ok: title.includes(name), detail: `active tab: ${title}` };
  });
}

async function runCommand(page, title) {
  await page.keyboard.press("F1");
  await page.waitForSelector(".quick-input-widget .quick-input-box input", { visible: true });
  await page.keyboard.type(title);
  await waitUntil(`the command palette selects "${title}"`, async () => ({
    ok: await quickInputReady(page, title, title),
    detail: await page.evaluate(() => {
      const w = document.querySelector(".quick-input-widget");
      const input = w && w.querySelector(".quick-input-box input");
      const row = w && w.querySelector(".monaco-list-row.focused");
      return `quick input ${w && w.style.display !== "none" ? "shown" : "hidden"}, holds ${JSON.stringify(input ? input.value : null)}, focused row ${JSON.stringify(row ? row.getAttribute("aria-label") || row.textContent : null)}`;
    }),
  }));
  await page.keyboard.press("Enter");
}

async function goToLine(page, line) {
  await chord(page, "Control", "KeyG");
  await page.waitForSelector(".quick-input-widget .quick-input-box input", { visible: true });
  await page.keyboard.type(String(line));
  await sleep(200);
  await page.keyboard.press("Enter");
  await sleep(200);
}

/** Types a budget into the extension's input box, replacing its text. */
async function answerBudgetBox(page, value) {
  await waitUntil("the budget input box", async () => ({
    ok: await page.evaluate(() => {
      const w = document.querySelector(".quick-input-widget");
      return !!w && w.style.display !== "none" && (w.textContent || "").includes("Context budget in characters");
    }),
    detail: "",
  }));
  await chord(page, "Control", "KeyA");
  await page.keyboard.press("Backspace");
  await page.keyboard.type(String(value));
  await page.keyboard.press("Enter");
}

/** Clicks the code lens whose title starts with `prefix`. */
async function clickLens(page, prefix) {
  const handle = await page.evaluateHandle((p) => {
    for (const a of document.querySelectorAll(".editor-group-container.active .codelens-decoration a")) {
      if (a.textContent.replace(/\u00a0/g, " ").trim().startsWith(p)) {
        return a;
      }
    }
    return null;
  }, prefix);
  const el = handle.asElement();
  if (!el) {
    throw new Error(`no clickable code lens starts with ${JSON.stringify(prefix)}`);
  }
  await el.click();
}

async function clickStatusItem(page) {
  const handle = await page.evaluateHandle(() => {
    const items = [...document.querySelectorAll(".statusbar-item")].filter((e) => e.offsetParent !== null);
    const ours = items.find((e) => (e.id || "").includes("sessionls.status")) || items.find((e) => e.textContent.includes("✂"));
    return ours ? ours.querySelector("a") || ours : null;
  });
  const el = handle.asElement();
  if (!el) {
    throw new Error("no sessionls status bar item to click");
  }
  await el.click();
}

async function notificationsText(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll(".notifications-toasts .notification-list-item")].map((n) => n.textContent.replace(/\s+/g, " ").trim()).join("\n"),
  );
}

let shotNo = 0;
async function screenshot(page, name) {
  const file = path.join(OUT, `${String(++shotNo).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file });
  log(`screenshot ${file}`);
  return file;
}

// ---------------------------------------------------------------- the test

async function checkEditor(page, label, facts, budget) {
  const lenses = expectedLenses(facts, budget);
  await waitUntil(`${label}: code lenses`, async () => sameLenses(lenses, (await readEditor(page)).lenses));
  const want = expectedSquiggles(facts.findings);
  await waitUntil(`${label}: squiggles on lines ${JSON.stringify(want)}`, async () => {
    const got = (await readEditor(page)).squiggles;
    const ok = JSON.stringify(got) === JSON.stringify(want);
    return { ok, detail: `want ${JSON.stringify(want)}\ngot ${JSON.stringify(got)}` };
  });
  const faded = expectedFaded(facts);
  await waitUntil(`${label}: faded lines ${JSON.stringify(faded)}`, async () => {
    const got = (await readEditor(page)).faded;
    return { ok: JSON.stringify(got) === JSON.stringify(faded), detail: `want ${JSON.stringify(faded)}\ngot ${JSON.stringify(got)}` };
  });
  const status = expectedStatus(facts, budget);
  await waitUntil(`${label}: status bar "${status}"`, async () => {
    const got = await statusBarText(page);
    return { ok: got === status, detail: `want ${JSON.stringify(status)}\ngot  ${JSON.stringify(got)}` };
  });
}

/** Starts Chromium, opens the workbench on WORKSPACE, runs body(page, consoleErrors), closes. */
async function withWorkbench(body) {
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: process.env.E2E_PROFILE || path.join(OUT, "chromium-profile"),
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
      "--lang=en-US",
    ],
    defaultViewport: { width: 1500, height: 900 },
  });
  browserProcess = browser.process();
  const consoleErrors = [];
  let page;
  try {
    page = await browser.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") {
        consoleErrors.push(m.text().slice(0, 300));
      }
    });
    page.on("pageerror", (e) => consoleErrors.push(`page error: ${String(e).slice(0, 300)}`));

    const url = new URL(URL_BASE);
    url.searchParams.set("folder", WORKSPACE);
    await page.goto(url.toString(), { waitUntil: "domcontentloaded" });
    await page.waitForSelector(".monaco-workbench .part.editor", { timeout: 60000 });
    await page.waitForSelector(".statusbar", { timeout: 60000 });
    log("workbench loaded");
    await body(page, consoleErrors);
  } catch (err) {
    if (page) {
      await page.screenshot({ path: path.join(OUT, "failure.png") }).catch(() => undefined);
      const state = await readEditor(page).catch(() => null);
      log(`editor state at failure: ${JSON.stringify(state)}`);
      log(`status bar at failure: ${await statusBarText(page).catch(() => "?")}`);
    }
    if (consoleErrors.length) {
      log(`browser console errors (last 20):\n  ${consoleErrors.slice(-20).join("\n  ")}`);
    }
    throw err;
  } finally {
    await browser.close().catch(() => undefined);
  }
}

// With E2E_DOCS=1 (run.sh with UPDATE_DOCS_SCREENSHOT=1) the test takes
// only the README's picture: a clean workspace holding demo.jsonl (its
// broken lines repaired, the orphan result left as a warning) under the
// round budget E2E_DOCS_BUDGET from the user settings, checked against the
// CLI like every other state, then saved as OUT/docs.png.
async function docsScreenshot(page) {
  const budget = Number(process.env.E2E_DOCS_BUDGET || 500);
  const text = fs.readFileSync(path.join(WORKSPACE, "demo.jsonl"), "utf8");
  await openFile(page, "demo.jsonl");
  await checkEditor(page, `demo.jsonl, budget ${budget} (docs screenshot)`, factsFor("demo.jsonl", text, budget), budget);
  await page.mouse.move(1100, 700); // an empty part of the editor: no hover in the picture
  await sleep(1000);
  await page.screenshot({ path: path.join(OUT, "docs.png") });
  log(`screenshot ${path.join(OUT, "docs.png")}`);
}

// ------------------------------------------------------- the context map

/** The frame of the context map's webview (code-server nests it in iframes). */
async function mapFrame(page, name = MAP_FILE) {
  for (const f of page.frames()) {
    const ok = await f
      .evaluate((name) => !!document.getElementById("totals") && !!document.getElementById("budget") && document.title.endsWith(name), name)
      .catch(() => false);
    if (ok) {
      return f;
    }
  }
  return null;
}

/** What the map page in the webview says (its data attributes). */
async function readMap(page, name = MAP_FILE) {
  const f = await mapFrame(page, name);
  if (!f) {
    return null;
  }
  return f
    .evaluate(() => {
      const num = (id, attr) => Number(document.getElementById(id)?.getAttribute(attr) || 0);
      return {
        units: num("units", "data-units"),
        totalChars: num("totals", "data-total-chars"),
        budget: num("budget", "data-limit"),
        cut: num("cutoff", "data-first-kept-line"),
        bins: document.querySelectorAll("#strip a[data-start-line]").length,
        title: document.title,
      };
    })
    .catch(() => null);
}

/** The editor's cursor line, from the status bar's "Ln 12, Col 1". */
async function cursorLine(page) {
  return page.evaluate(() => {
    for (const e of document.querySelectorAll(".statusbar-item")) {
      const m = e.textContent.trim().match(/^Ln (\d+), Col \d+/);
      if (m) {
        return Number(m[1]);
      }
    }
    return null;
  });
}

const MAP_FILE = "map.jsonl";

/** big.jsonl: a session of 51 MB (lines of clean.jsonl repeated). */
function writeBig(cleanText) {
  const chunk = Buffer.from(cleanText.repeat(Math.ceil((1 << 20) / cleanText.length)));
  const fd = fs.openSync(path.join(WORKSPACE, "big.jsonl"), "w");
  for (let n = 0; n < 51 * (1 << 20); n += chunk.length) {
    fs.writeSync(fd, chunk);
  }
  fs.closeSync(fd);
}

// 17. "sessionls: Show Context Map": the page of `sessionls map` in a
// webview beside the editor, fed by the server; it follows the budget and
// edits, and a click on a unit moves the editor's cursor to its line.
async function contextMapSteps(page) {
  const file = path.join(WORKSPACE, MAP_FILE);
  const text = fs.readFileSync(file, "utf8");
  const settingsBefore = workspaceSettings();
  const setBudget = (n) => {
    const s = settingsBefore ? JSON.parse(settingsBefore) : {};
    s["sessionls.budget"] = n;
    writeSettings(s);
  };
  const want1 = budgetJSON(file, 600);
  const want2 = budgetJSON(file, 300);
  if (!want1.cutoff || !want2.cutoff || want1.cutoff.firstKeptLine === want2.cutoff.firstKeptLine) {
    throw new Error(`budgets 600 and 300 were expected to cut ${MAP_FILE} at different lines: ${JSON.stringify([want1.cutoff, want2.cutoff])}`);
  }
  const mapIs = (label, want, budget) =>
    waitUntil(`the context map webview: ${label}: ${want.units.length} units, ${want.totalChars} chars, budget ${budget} keeps from line ${want.cutoff ? want.cutoff.firstKeptLine : "-"}`, async () => {
      const m = await readMap(page);
      const ok =
        !!m && m.units === want.units.length && m.totalChars === want.totalChars && m.budget === budget && m.cut === (want.cutoff ? want.cutoff.firstKeptLine : 0);
      return { ok, detail: `page: ${JSON.stringify(m)}` };
    });

  setBudget(600);
  await openFile(page, MAP_FILE);
  await runCommand(page, "sessionls: Show Context Map");
  await mapIs("as opened", want1, 600);
  await sleep(500);
  const shot = await screenshot(page, "context-map");
  fs.copyFileSync(shot, path.join(OUT, "map-vscode.png"));

  // The budget changes: the page follows, scrolled where it was (the
  // page keeps its place in the webview's state).
  const scrolled = await (await mapFrame(page)).evaluate(() => {
    window.scrollTo(0, 150);
    return window.scrollY;
  });
  if (scrolled < 100) {
    throw new Error(`the map page scrolls only to ${scrolled}: too short for the scroll check`);
  }
  await sleep(300); // the page saves its place on the next animation frame
  setBudget(300);
  await mapIs("budget changed", want2, 300);
  await waitUntil(`the new page opens scrolled where the old one was (${scrolled}px)`, async () => {
    const f = await mapFrame(page);
    const y = f ? await f.evaluate(() => window.scrollY).catch(() => null) : null;
    return { ok: y === scrolled, detail: `scrollY ${y}` };
  });

  // A click on a unit: the editor's cursor lands on its first line.
  const target = want2.units[2].startLine; // line 7: a wide unit, away from the cutoff line
  if ((await cursorLine(page)) === target) {
    throw new Error(`the cursor is already on line ${target}`);
  }
  const frame = await mapFrame(page);
  const piece = frame && (await frame.$(`#strip a[data-start-line="${target}"]`));
  if (!piece) {
    throw new Error(`the map has no unit starting at line ${target}`);
  }
  await piece.click();
  await waitUntil(`a click on the unit of line ${target} puts the cursor on line ${target}`, async () => {
    const line = await cursorLine(page);
    const tab = await page.evaluate(() => document.querySelector(".tabs-container .tab.active")?.getAttribute("aria-label") || "");
    return { ok: line === target && tab.includes(MAP_FILE), detail: `cursor line ${line}, active tab ${tab}` };
  });

  // An edit (unsaved): the page is the edited text's.
  const lines = text.split("\n");
  const line1 = '{"role":"user","content":"This first message was rewritten in the editor, so the map changes."}';
  const edited = [line1, ...lines.slice(1)].join("\n");
  const editedFile = path.join(OUT, "cli", MAP_FILE);
  fs.mkdirSync(path.dirname(editedFile), { recursive: true });
  fs.writeFileSync(editedFile, edited);
  const want3 = budgetJSON(editedFile, 300);
  await goToLine(page, 1);
  await page.keyboard.press("Home");
  await page.keyboard.press("Home");
  await chord(page, "Shift", "End");
  await page.keyboard.type(line1);
  await mapIs("line 1 edited", want3, 300);
  await screenshot(page, "context-map-edited");

  // A file VS Code keeps from extensions (50 MB or more): the extension
  // has no document, so the page comes from `sessionls map` on the file.
  const bigFile = path.join(WORKSPACE, "big.jsonl");
  const bigWant = budgetJSON(bigFile, 300);
  await openFile(page, "big.jsonl");
  // The large-file placeholder takes the focus once it is drawn, which
  // closes a command palette opened before: wait for it to settle, then
  // open the palette again if it closed under the typing.
  await sleep(1000);
  for (let attempt = 1; ; attempt++) {
    try {
      await runCommand(page, "sessionls: Show Context Map");
      break;
    } catch (err) {
      if (attempt === 3) {
        throw err;
      }
      log(`the command palette lost the typing (attempt ${attempt}): opening it again`);
      await page.keyboard.press("Escape");
    }
  }
  await waitUntil(`the context map of the 51 MB big.jsonl (from the CLI): ${bigWant.units.length} units, ${bigWant.totalChars} chars, keeps from line ${bigWant.cutoff.firstKeptLine}`, async () => {
    const m = await readMap(page, "big.jsonl");
    const ok = !!m && m.units === bigWant.units.length && m.totalChars === bigWant.totalChars && m.cut === bigWant.cutoff.firstKeptLine;
    return { ok, detail: `page: ${JSON.stringify(m)}` };
  }, 60000);
  await screenshot(page, "context-map-big");

  // A click on a unit of the 51 MB file: VS Code gives the extension no
  // editor for it, so the extension asks the workbench (vscode.open with a
  // selection); the cursor lands on the unit's line, after "Open Anyway"
  // when VS Code first asks whether to open so large a file.
  const bigFrame = await mapFrame(page, "big.jsonl");
  const bigTarget = bigFrame && (await bigFrame.evaluate(() => {
    const as = [...document.querySelectorAll("#strip a[data-start-line]")];
    const a = as[Math.floor(as.length * 0.6)];
    a?.setAttribute("id", "e2e-big-target");
    return a ? Number(a.getAttribute("data-start-line")) : null;
  }));
  if (!bigTarget || bigTarget < 1000) {
    throw new Error(`the map of big.jsonl has no unit far into the file to click: ${bigTarget}`);
  }
  await (await bigFrame.$("#e2e-big-target")).click();
  let openedAnyway = false;
  await waitUntil(`a click on the unit of line ${bigTarget} in the 51 MB file's map puts the cursor on line ${bigTarget}`, async () => {
    const line = await cursorLine(page);
    if (line !== bigTarget && !openedAnyway) {
      openedAnyway = await page.evaluate(() => {
        const b = [...document.querySelectorAll(".editor-container a, .editor-container .monaco-button, .editor-container button")].find((e) => /Open Anyway/i.test(e.textContent));
        b?.click();
        return !!b;
      });
      if (openedAnyway) {
        log('the large-file placeholder asked: clicked "Open Anyway"');
      }
    }
    const tab = await page.evaluate(() => document.querySelector(".tabs-container .tab.active")?.getAttribute("aria-label") || "");
    return { ok: line === bigTarget && tab.includes("big.jsonl"), detail: `cursor line ${line}, active tab ${tab}` };
  }, 60000);
  // The map stays as it was (the page the CLI made takes seconds, and the
  // reader keeps their place): it is not drawn again because the focus
  // moved to the editor.
  await sleep(2000);
  const kept = await bigFrame.evaluate(() => !!document.getElementById("e2e-big-target")).catch(() => false);
  if (!kept) {
    throw new Error("the 51 MB file's map was drawn again after the click moved the focus to the editor");
  }
  log("ok: the 51 MB file's map was not drawn again when the focus moved to the editor");
  await screenshot(page, "context-map-big-reveal");

  restoreSettings(settingsBefore);
}

// 18. A file that begins with a UTF-8 byte order mark: VS Code hides it
// ("UTF-8 with BOM" in the status bar) while the runtime refuses the file.
// The server reports it on line 1; its quick fix (sessionls.removeDiskBOM)
// rewrites the file on disk without the BOM, and VS Code, whose copy is
// not dirty, reloads it: the squiggle goes, the file keeps every other
// byte, the tab is neither dirty nor in conflict, the encoding reads UTF-8
// and a later save writes no BOM back.
const BOM_FILE = "bom.jsonl";
const BOM_BODY = () =>
  Buffer.concat([
    fs.readFileSync(path.join(__dirname, "..", "..", "..", "testdata", "sessions", "units.jsonl")),
    Buffer.from('{"role":"user","content":"é🙂 ✂ 设计"}\n', "utf8"),
  ]);

function writeBOMFile() {
  fs.writeFileSync(path.join(WORKSPACE, BOM_FILE), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), BOM_BODY()]));
}

async function bomSteps(page) {
  const file = path.join(WORKSPACE, BOM_FILE);
  const body = BOM_BODY();
  const encoding = () =>
    page.evaluate(() => {
      const e = document.querySelector("#status\\.editor\\.encoding");
      return e ? e.textContent.trim() : null;
    });
  const tabState = () =>
    page.evaluate(() => {
      const t = document.querySelector(".tabs-container .tab.active");
      return t ? { label: t.getAttribute("aria-label") || "", dirty: t.classList.contains("dirty") } : null;
    });
  await openFile(page, BOM_FILE);
  await waitUntil(`${BOM_FILE}: VS Code reads it as UTF-8 with BOM`, async () => {
    const e = await encoding();
    return { ok: e === "UTF-8 with BOM", detail: `encoding: ${e}` };
  });
  await waitUntil(`${BOM_FILE}: the hidden BOM is an error squiggle on line 1`, async () => {
    const got = (await readEditor(page)).squiggles;
    return { ok: JSON.stringify(got.error) === "[1]", detail: `squiggles ${JSON.stringify(got)}` };
  });
  await goToLine(page, 1);
  await chord(page, "Control", "Period");
  const title = "Remove the byte order mark from the file on disk";
  await waitUntil(`the light bulb menu offers "${title}"`, async () => {
    const text = await page.evaluate(() => [...document.querySelectorAll(".action-widget")].map((e) => e.textContent).join("\n"));
    return { ok: text.includes(title), detail: `menu: ${text}` };
  });
  const row = (
    await page.evaluateHandle((t) => [...document.querySelectorAll(".action-widget .monaco-list-row")].find((r) => r.textContent.includes(t)) || null, title)
  ).asElement();
  if (!row) {
    throw new Error(`no row "${title}" in the light bulb menu`);
  }
  await row.click();
  await waitUntil(`the quick fix: ${BOM_FILE} on disk is its bytes without the BOM (${body.length} bytes)`, async () => {
    const disk = fs.readFileSync(file);
    return { ok: disk.equals(body), detail: `disk: ${disk.length} bytes, starts ${JSON.stringify([...disk.subarray(0, 4)])}` };
  });
  await waitUntil(`after the quick fix: no squiggle, the tab not dirty, the encoding UTF-8`, async () => {
    const sq = (await readEditor(page)).squiggles;
    const tab = await tabState();
    const e = await encoding();
    return {
      ok: sq.error.length === 0 && tab && tab.label.includes(BOM_FILE) && !tab.dirty && e === "UTF-8",
      detail: `squiggles ${JSON.stringify(sq)}, tab ${JSON.stringify(tab)}, encoding ${e}`,
    };
  });
  // A line typed at the end and saved: the file on disk is the body and
  // that line, with no BOM put back and no conflict reported.
  const typed = '{"role":"user","content":"typed after the fix"}';
  await chord(page, "Control", "End");
  await page.keyboard.type(typed);
  await chord(page, "Control", "KeyS");
  const want = Buffer.concat([body, Buffer.from(typed, "utf8")]);
  await waitUntil(`a save after the fix: ${BOM_FILE} on disk is the body and the typed line, no BOM`, async () => {
    const disk = fs.readFileSync(file);
    return { ok: disk.equals(want), detail: `disk: ${disk.length} bytes (want ${want.length}), starts ${JSON.stringify([...disk.subarray(0, 4)])}` };
  });
  await waitUntil("after the save: the tab is not dirty and no notification reports a conflict", async () => {
    const tab = await tabState();
    const n = (await notificationsText(page)) || "";
    return { ok: tab && !tab.dirty && !/newer|conflict|Failed to save/i.test(n), detail: `tab ${JSON.stringify(tab)}, notifications ${n}` };
  });
  await screenshot(page, "bom-fixed");
}

// 19. A session with more lenses than the extension hands VS Code resolved
// (DEFER_LENSES_ABOVE in src/extension.ts): the lenses on screen are the
// CLI's, VS Code draws only those (not one widget per unit of the file),
// the ones scrolled to are drawn too, and a click on one still runs its
// command (budget to here).
const MANY_FILE = "many.jsonl";
const MANY_UNITS = 400;

function writeManyFile() {
  const lines = [];
  for (let i = 1; i <= MANY_UNITS; i++) {
    lines.push(`{"role":"user","content":"message ${i} of a long session"}`);
  }
  fs.writeFileSync(path.join(WORKSPACE, MANY_FILE), lines.join("\n") + "\n");
}

async function manyLensSteps(page) {
  const file = path.join(WORKSPACE, MANY_FILE);
  const text = fs.readFileSync(file, "utf8");
  const settingsBefore = workspaceSettings();
  const noBudget = settingsBefore ? JSON.parse(settingsBefore) : {};
  delete noBudget["sessionls.budget"];
  writeSettings(noBudget);
  const facts = factsFor(MANY_FILE, text, 0);
  if (facts.units.length <= 200) {
    throw new Error(`${MANY_FILE} has ${facts.units.length} units: the step needs more than the extension's 200`);
  }
  const want = expectedLenses(facts, 0);
  // fresh: the file just opened, so VS Code has resolved (and drawn) only
  // what is on screen; after scrolling, the lenses resolved before stay
  // drawn above the window (readEditor puts them on its first line) until
  // the next refresh.
  const onScreen = (label, fresh) =>
    waitUntil(`${MANY_FILE} (${facts.units.length} units): ${label}: the lenses on screen are the CLI's${fresh ? ", and VS Code draws no others" : ""}`, async () => {
      const ed = await readEditor(page);
      // The last rows may be cut by the bottom edge, with their lens.
      const lines = ed.visible.slice(fresh ? 0 : 1, -2);
      const w = byLine([...want.entries()].filter(([l]) => lines.includes(Number(l))));
      const g = byLine(Object.entries(ed.lenses).filter(([l]) => lines.includes(Number(l))));
      const ok = lines.length > 5 && JSON.stringify(w) === JSON.stringify(g) && (!fresh || ed.decorations <= ed.visible.length + 2);
      return { ok, detail: `lines ${lines[0]}–${lines[lines.length - 1]}; ${ed.decorations} lens decorations drawn\nwant:\n  ${w.join("\n  ")}\ngot:\n  ${g.join("\n  ")}` };
    });
  await openFile(page, MANY_FILE);
  await onScreen("at the top", true);
  await goToLine(page, 300);
  await onScreen("scrolled to line 300", false);
  // Budget to here on a lens VS Code resolved from the extension's copy.
  const ed = await readEditor(page);
  const target = ed.visible[Math.floor(ed.visible.length / 2)];
  const k = facts.units.findIndex((u) => u.startLine === target);
  const fromNewest = facts.units.slice(k).reduce((n, u) => n + u.chars, 0);
  const title = want.get(target)[0];
  await clickLens(page, title);
  const cut = budgetJSON(file, fromNewest).cutoff;
  const status = `✂ budget ${fmt(fromNewest)} keeps ${plural(cut.keptChars, "char", "chars")}`;
  await waitUntil(`a click on the lens of line ${target} sets the budget to its ${fmt(fromNewest)} chars from newest: status bar "${status}"`, async () => {
    const got = await statusBarText(page);
    return { ok: got === status && cut.firstKeptLine === target, detail: `got ${JSON.stringify(got)}; the CLI keeps from line ${cut.firstKeptLine}` };
  });
  await screenshot(page, "many-lenses");
  restoreSettings(settingsBefore);
}

// E2E_ONLY=lag: how far the lenses lag behind typing in a large session
// (E2E_LAG_FILE, a session of about 20 MB: go run ./bench/gen -size 19M).
// A measurement, not a check: it types a character into a user message
// in the middle of the file, then deletes it, E2E_LAG_ROUNDS times, and
// logs the milliseconds from each keystroke until the lens of that unit
// shows the new chars, with the median; the sessionls output channel
// (the client's trace of every message, with its round trip) is copied
// to the output directory.
const LAG_FILE = "lag.jsonl";

async function lagSteps(page) {
  const file = path.join(WORKSPACE, LAG_FILE);
  const facts = budgetJSON(file, 1e15);
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const head = '{"role":"user","content":"';
  let unit = null;
  for (let k = Math.floor(facts.units.length / 2); k < facts.units.length && !unit; k++) {
    if (lines[facts.units[k].startLine - 1].startsWith(head)) {
      unit = facts.units[k];
    }
  }
  if (!unit) {
    throw new Error(`${LAG_FILE}: no unit in the second half starts with a user message`);
  }
  const lensChars = async (line) => {
    const got = (await readEditor(page)).lenses[line] || [];
    for (const t of got) {
      const m = t.match(/^([0-9,]+) chars · /);
      if (m) {
        return Number(m[1].replace(/,/g, ""));
      }
    }
    return null;
  };
  const t0 = Date.now();
  await openFile(page, LAG_FILE);
  // Go to the line, column just inside the content string; on a loaded
  // machine the quick input of a 20 MB file answers slowly, so wait for it
  // before Enter and for the cursor after.
  await chord(page, "Control", "KeyG");
  await page.waitForSelector(".quick-input-widget .quick-input-box input", { visible: true });
  await page.keyboard.type(`${unit.startLine}:${head.length + 1}`);
  await waitUntil(`Go to Line offers line ${unit.startLine}`, async () => ({
    ok: await quickInputReady(page, `:${unit.startLine}:${head.length + 1}`, `Go to line ${unit.startLine}`),
    detail: "",
  }), 60000);
  await page.keyboard.press("Enter");
  await waitUntil(`the cursor is on line ${unit.startLine}`, async () => {
    const l = await cursorLine(page);
    return { ok: l === unit.startLine, detail: `cursor line ${l}` };
  }, 60000);
  await waitUntil(`${LAG_FILE} (${fmt(fs.statSync(file).size)} bytes, ${facts.units.length} units): the lens of line ${unit.startLine} says ${fmt(unit.chars)} chars`, async () => {
    const n = await lensChars(unit.startLine);
    return { ok: n === unit.chars, detail: `lens chars ${n}` };
  }, 180000);
  log(`lag: opened, lenses shown after ${Date.now() - t0} ms`);
  // What the workbench still does after the first lenses (the outline,
  // folding, the first resolves) would fall on the first round.
  await sleep(Number(process.env.E2E_LAG_SETTLE_MS || 10000));
  const rounds = Number(process.env.E2E_LAG_ROUNDS || 10);
  const samples = [];
  // E2E_LAG_PROFILE=1: a CPU profile of the workbench (the renderer) over
  // the rounds, its heaviest functions logged by self time.
  let cdp = null;
  if (process.env.E2E_LAG_PROFILE === "1") {
    cdp = await page.target().createCDPSession();
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 1000 });
    await cdp.send("Profiler.start");
  }
  for (let i = 0; i < rounds; i++) {
    const want = unit.chars + (i % 2 === 0 ? 1 : 0);
    const start = Date.now();
    if (i % 2 === 0) {
      await page.keyboard.type("x");
    } else {
      await page.keyboard.press("Backspace");
    }
    let n = null;
    while ((n = await lensChars(unit.startLine)) !== want) {
      if (Date.now() - start > 60000) {
        throw new Error(`lag: the lens of line ${unit.startLine} still says ${n} chars 60 s after the keystroke, want ${want}`);
      }
      await sleep(20);
    }
    samples.push(Date.now() - start);
    log(`lag: round ${i + 1}: the lens followed the keystroke after ${samples[i]} ms`);
    await sleep(1000);
  }
  if (cdp) {
    const { profile } = await cdp.send("Profiler.stop");
    const self = new Map();
    const dt = new Map();
    profile.samples.forEach((id, k) => dt.set(id, (dt.get(id) || 0) + (profile.timeDeltas[k] || 0)));
    for (const n of profile.nodes) {
      const f = n.callFrame;
      const key = `${f.functionName || "(anonymous)"} ${path.basename(f.url || "")}:${f.lineNumber}`;
      self.set(key, (self.get(key) || 0) + (dt.get(n.id) || 0));
    }
    const total = [...self.values()].reduce((a, b) => a + b, 0);
    const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25);
    log(`lag: renderer profile, ${Math.round(total / 1000)} ms sampled; heaviest by self time:`);
    for (const [k, v] of top) {
      log(`lag:   ${String(Math.round(v / 1000)).padStart(6)} ms  ${k}`);
    }
    fs.writeFileSync(path.join(OUT, "renderer.cpuprofile"), JSON.stringify(profile));
  }
  const sorted = samples.slice().sort((a, b) => a - b);
  log(`lag: keystroke → lens, ms: ${samples.join(" ")}; median ${sorted[Math.floor(sorted.length / 2)]}, max ${sorted[sorted.length - 1]}`);
  await screenshot(page, "lag");
  const logs = path.join(WORKSPACE, "..", "user-data", "logs");
  const found = spawnSync("find", [logs, "-name", "*sessionls*.log"], { encoding: "utf8" }).stdout.split("\n").filter(Boolean);
  for (const f of found) {
    fs.copyFileSync(f, path.join(OUT, `trace-${path.basename(f)}`));
  }
  log(`lag: copied ${found.length} output channel logs to ${OUT}`);
}

// 20. A Claude Code and a Codex CLI transcript where those tools keep them
// (~/.claude/projects/<p>/<s>.jsonl, ~/.codex/sessions/YYYY/MM/DD/
// rollout-*.jsonl), with no setup beyond the extension's file patterns
// (issue 21): the squiggles are `sessionls check --format json`'s on the
// same file, a lens shows the last turn's context as `sessionls budget
// --format json` reports it, and the unsafe quick fix for the tool call
// without a result, picked from the light bulb menu, adds the line `check
// --fix --unsafe-fixes` adds (the file, saved, is the original with it).
const DIALECT_FILES = [
  { dialect: "claude-code", src: "claude-code/missing-result-tail.jsonl", rel: ".claude/projects/-home-dev-shop/5e550000-03e9.jsonl" },
  { dialect: "codex", src: "codex/missing-output.jsonl", rel: "sessions/2026/11/30/rollout-2026-11-30T09-14-x.jsonl" },
];

function writeDialectFiles() {
  for (const c of DIALECT_FILES) {
    const file = path.join(WORKSPACE, c.rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.copyFileSync(path.join(__dirname, "..", "..", "..", "testdata", "dialects", c.src), file);
  }
}

async function dialectSteps(page) {
  // The editor's budget would override the file's: none, as the CLI has.
  const settingsBefore = workspaceSettings();
  const noBudget = settingsBefore ? JSON.parse(settingsBefore) : {};
  delete noBudget["sessionls.budget"];
  delete noBudget["editor.codeActionsOnSave"];
  writeSettings(noBudget);
  for (const c of DIALECT_FILES) {
    const file = path.join(WORKSPACE, c.rel);
    const name = path.basename(file);
    const text = fs.readFileSync(file, "utf8");
    const findings = checkJSON(file);
    const missing = findings.find((f) => f.code === "missing-tool-result");
    if (!missing) {
      throw new Error(`${c.rel}: check reports no missing-tool-result: the quick fix step would prove nothing`);
    }
    await openFile(page, name);
    const want = expectedSquiggles(findings);
    await waitUntil(`${c.rel} (${c.dialect}): squiggles of sessionls check on lines ${JSON.stringify(want)}`, async () => {
      const got = (await readEditor(page)).squiggles;
      return { ok: JSON.stringify(got) === JSON.stringify(want), detail: `want ${JSON.stringify(want)}\ngot ${JSON.stringify(got)}` };
    });
    const ctx = runCli(["budget", "--format", "json", file]).context;
    if (!ctx || !ctx.window) {
      throw new Error(`${c.rel}: budget --format json has no context with a window: ${JSON.stringify(ctx)}`);
    }
    const title = `context ${fmt(ctx.tokens)} / ${fmt(ctx.window)} tokens · ${ctx.fill}% · +${fmt(ctx.outputTokens)} output`;
    await goToLine(page, ctx.line);
    await waitUntil(`${c.rel}: the usage lens on line ${ctx.line}: "${title}"`, async () => {
      const got = (await readEditor(page)).lenses[ctx.line] || [];
      return { ok: got.includes(title), detail: `lenses on line ${ctx.line}: ${JSON.stringify(got)}` };
    });

    // The quick fix: what it adds is the line check --fix --unsafe-fixes
    // adds after the same line.
    const fixedCopy = path.join(OUT, "cli", `fixed-${name}`);
    fs.mkdirSync(path.dirname(fixedCopy), { recursive: true });
    fs.writeFileSync(fixedCopy, text);
    spawnSync(BIN, ["check", "--fix", "--unsafe-fixes", fixedCopy]);
    const fixed = fs.readFileSync(fixedCopy, "utf8").split("\n");
    const orig = text.split("\n");
    await goToLine(page, missing.line);
    await chord(page, "Control", "Period");
    const marker = "tool call interrupted; no result was recorded";
    await waitUntil(`${c.rel}: the light bulb menu offers the unsafe quick fix on line ${missing.line}`, async () => {
      const menu = await page.evaluate(() => [...document.querySelectorAll(".action-widget")].map((e) => e.textContent).join("\n"));
      return { ok: menu.includes(marker), detail: `menu: ${menu}` };
    });
    const picked = await page.evaluate(
      (m) => ([...document.querySelectorAll(".action-widget .monaco-list-row")].find((r) => r.textContent.includes(m)) || {}).textContent || "",
      marker,
    );
    const row = (
      await page.evaluateHandle((m) => [...document.querySelectorAll(".action-widget .monaco-list-row")].find((r) => r.textContent.includes(m)) || null, marker)
    ).asElement();
    if (!row) {
      throw new Error(`${c.rel}: no row with "${marker}" in the light bulb menu`);
    }
    await row.click();
    // The added line: a line of fixed that the original lacks, naming the
    // call the picked fix names; it goes after the line that precedes it
    // in fixed.
    const added = fixed.findIndex((l, i) => !orig.includes(l) && l.includes(marker) && [...l.matchAll(/"(call_[^"]+|toolu_[^"]+)"/g)].some((m) => picked.includes(m[1])));
    if (added < 1) {
      throw new Error(`${c.rel}: check --fix --unsafe-fixes adds no line for the picked fix (${picked})`);
    }
    const at = orig.indexOf(fixed[added - 1]);
    const wantText = [...orig.slice(0, at + 1), fixed[added], ...orig.slice(at + 1)].join("\n");
    await chord(page, "Control", "KeyS");
    await waitUntil(`${c.rel}: after the quick fix and a save, the file is the original with the line check --fix --unsafe-fixes adds`, async () => {
      const disk = fs.readFileSync(file, "utf8");
      return { ok: disk === wantText, detail: `disk: ${disk.length} chars, want ${wantText.length}` };
    });
    const after = expectedSquiggles(checkJSON(file));
    await waitUntil(`${c.rel}: after the quick fix, squiggles of sessionls check on lines ${JSON.stringify(after)}`, async () => {
      const got = (await readEditor(page)).squiggles;
      return { ok: JSON.stringify(got) === JSON.stringify(after), detail: `want ${JSON.stringify(after)}\ngot ${JSON.stringify(got)}` };
    });
    await screenshot(page, `dialect-${c.dialect}`);
  }
  if (settingsBefore !== null) {
    fs.writeFileSync(SETTINGS_FILE, settingsBefore);
  }
}

async function main() {
  if (process.env.E2E_DOCS === "1") {
    return withWorkbench(docsScreenshot);
  }
  // For step 17 (the context map): testdata/sessions/units.jsonl, 8 units.
  fs.writeFileSync(path.join(WORKSPACE, MAP_FILE), fs.readFileSync(path.join(__dirname, "..", "..", "..", "testdata", "sessions", "units.jsonl")));
  writeBOMFile();
  writeManyFile();
  writeDialectFiles();
  if (process.env.E2E_ONLY === "dialects") {
    // A quicker run of step 20 alone (E2E_ONLY=dialects run.sh).
    return withWorkbench(dialectSteps);
  }
  if (process.env.E2E_ONLY === "many") {
    // A quicker run of step 19 alone (E2E_ONLY=many run.sh).
    return withWorkbench(manyLensSteps);
  }
  if (process.env.E2E_ONLY === "lag") {
    fs.copyFileSync(process.env.E2E_LAG_FILE, path.join(WORKSPACE, LAG_FILE));
    writeSettings({ "sessionls.trace.server": "messages", "workbench.editorLargeFileConfirmation": 1024, ...JSON.parse(process.env.E2E_LAG_SETTINGS || "{}") });
    return withWorkbench(lagSteps);
  }
  if (process.env.E2E_ONLY === "bom") {
    // A quicker run of step 18 alone (E2E_ONLY=bom run.sh).
    return withWorkbench(bomSteps);
  }
  if (process.env.E2E_ONLY === "map") {
    // A quicker run of step 17 alone (E2E_ONLY=map run.sh).
    writeBig(fs.readFileSync(path.join(WORKSPACE, "clean.jsonl"), "utf8"));
    return withWorkbench(contextMapSteps);
  }
  const demoPath = path.join(WORKSPACE, "demo.jsonl");
  const demoText = fs.readFileSync(demoPath, "utf8");
  const cleanText = fs.readFileSync(path.join(WORKSPACE, "clean.jsonl"), "utf8");

  // The edit the test types into demo.jsonl: it makes the file load.
  const demoLines = demoText.split("\n");
  const check0 = checkJSON(demoPath);
  const loadErrors = check0.filter(isLoadError);
  if (loadErrors.length === 0) {
    throw new Error("demo.jsonl was expected to have invalid lines (the test fixes them in the editor)");
  }
  const fixed = demoLines.slice();
  for (const f of loadErrors) {
    fixed[f.line - 1] = '{"role":"user","content":"This line was fixed in the editor."}';
  }
  const fixedText = fixed.join("\n");

  // A budget that cuts the fixed demo in the middle of its units.
  const fixedAll = factsFor("demo-fixed.jsonl", fixedText, 0);
  const units = fixedAll.units;
  if (units.length < 3) {
    throw new Error(`the fixed demo has ${units.length} units; the test needs 3 or more`);
  }
  let acc = 0;
  const from = units.map((u) => u.chars).reverse().map((c) => (acc += c)).reverse();
  const k = Math.floor(units.length / 2);
  const budget = from[k] + Math.floor(units[k - 1].chars / 2);

  const demoNoBudget = factsFor("demo.jsonl", demoText, 0);
  const demoBudget = factsFor("demo.jsonl", demoText, budget);
  const cleanBudget = factsFor("clean.jsonl", cleanText, budget);
  const fixedBudget = factsFor("demo-fixed.jsonl", fixedText, budget);
  if (!fixedBudget.withBudget.cutoff) {
    throw new Error(`budget ${budget} does not cut the fixed demo: ${JSON.stringify(fixedBudget.withBudget)}`);
  }
  log(`budget ${budget}; the CLI cuts the fixed demo at line ${fixedBudget.withBudget.cutoff.firstKeptLine}`);

  // For step 10; written before the workbench starts so that quick open
  // indexes it.
  fs.writeFileSync(path.join(WORKSPACE, "session.log"), cleanText);
  // For step 13: a session with fixable findings (two trailing commas and a
  // whitespace-only line), and what `sessionls check --fix` makes of it.
  const fixmeText = [
    '{"role":"user","content":"Fix the «parser», please 🙏",}',
    '{"role":"assistant","content":"On it.","toolCalls":[]}',
    " \t ",
    '{"role":"user","content":"Thanks!",}',
    "",
  ].join("\n");
  fs.writeFileSync(path.join(WORKSPACE, "fixme.jsonl"), fixmeText);
  const fixmeCLI = path.join(OUT, "cli", "fixme.jsonl");
  fs.mkdirSync(path.dirname(fixmeCLI), { recursive: true });
  fs.writeFileSync(fixmeCLI, fixmeText);
  const fixRun = spawnSync(BIN, ["check", "--fix", "--isolated", fixmeCLI], { encoding: "utf8" });
  if (fixRun.status !== 0 && fixRun.status !== 1) {
    throw new Error(`sessionls check --fix failed (exit ${fixRun.status}): ${fixRun.stderr}`);
  }
  const fixmeFixed = fs.readFileSync(fixmeCLI, "utf8");
  if (fixmeFixed === fixmeText) {
    throw new Error("sessionls check --fix changed nothing in fixme.jsonl");
  }
  // For step 15: the same session, fixed from the command palette.
  fs.writeFileSync(path.join(WORKSPACE, "fixme2.jsonl"), fixmeText);
  // For step 16: a session of 50 MB or more, which VS Code does not give
  // to extensions (lines of clean.jsonl repeated).
  writeBig(cleanText);

  await withWorkbench(async (page) => {

    // 1. demo.jsonl as shipped: it does not load.
    await openFile(page, "demo.jsonl");
    await checkEditor(page, "demo.jsonl", demoNoBudget, 0);
    await screenshot(page, "demo-no-budget");

    // 2. The Problems panel lists every finding of `sessionls check`.
    await chord(page, "Control", "Shift", "KeyM");
    await page.waitForSelector(".markers-panel", { visible: true });
    await waitUntil("the Problems panel lists every finding of sessionls check", async () => {
      const text = (await problemsText(page)) || "";
      const missing = demoNoBudget.findings.filter((f) => !text.includes(f.message) || !text.includes(`[Ln ${f.line}, Col ${f.column}]`));
      return {
        ok: missing.length === 0,
        detail: `missing:\n  ${missing.map((f) => `${f.message} [Ln ${f.line}, Col ${f.column}]`).join("\n  ")}\npanel:\n${text}`,
      };
    });
    await screenshot(page, "demo-problems");
    await chord(page, "Control", "KeyJ"); // hide the panel again

    // 3. Set the budget through the command palette.
    await runCommand(page, "sessionls: Set Context Budget");
    await answerBudgetBox(page, budget);
    await checkEditor(page, `demo.jsonl, budget ${budget}`, demoBudget, budget);
    await waitUntil("the budget is stored in the workspace settings", async () => {
      const text = workspaceSettings() ?? "";
      return { ok: new RegExp(`"sessionls\\.budget"\\s*:\\s*${budget}\\b`).test(text), detail: `${SETTINGS_FILE}: ${text}` };
    });
    await screenshot(page, "demo-budget-does-not-load");

    // 4. clean.jsonl under the same budget.
    await openFile(page, "clean.jsonl");
    await checkEditor(page, `clean.jsonl, budget ${budget}`, cleanBudget, budget);
    await screenshot(page, "clean-budget");

    // 4b. A click on the budget lens (the server's command, sent without a
    // number) opens the same input box: a budget smaller than the newest
    // unit makes trimContext throw.
    const small = cleanBudget.units[cleanBudget.units.length - 1].chars - 1;
    const cleanSmall = factsFor("clean.jsonl", cleanText, small);
    if (!cleanSmall.withBudget.error) {
      throw new Error(`budget ${small} was expected to be too small for clean.jsonl: ${JSON.stringify(cleanSmall.withBudget)}`);
    }
    await clickLens(page, "✂ budget");
    await answerBudgetBox(page, small);
    await checkEditor(page, `clean.jsonl, lens click, budget ${small}`, cleanSmall, small);
    await screenshot(page, "clean-budget-too-small");

    // 4c. A click on the status bar item sets it back.
    await clickStatusItem(page);
    await answerBudgetBox(page, budget);
    await checkEditor(page, `clean.jsonl, status bar click, budget ${budget}`, cleanBudget, budget);

    // 4d. A click on a unit lens sets "budget to here" (its chars from
    // newest, no prompt): the cut lands on that unit.
    {
      const us = cleanBudget.units;
      let acc2 = 0;
      const from2 = us.map((u) => u.chars).reverse().map((c) => (acc2 += c)).reverse();
      const j = 1;
      const u = us[j];
      const title = `${fmt(u.chars)} chars · ${plural(u.messages, "message", "messages")} · ${fmt(from2[j])} from newest`;
      const cleanHere = factsFor("clean.jsonl", cleanText, from2[j]);
      if (!cleanHere.withBudget.cutoff || cleanHere.withBudget.cutoff.firstKeptLine !== u.startLine) {
        throw new Error(`budget ${from2[j]} does not cut clean.jsonl at line ${u.startLine}: ${JSON.stringify(cleanHere.withBudget)}`);
      }
      await clickLens(page, title);
      await checkEditor(page, `clean.jsonl, unit lens click on line ${u.startLine} (budget to here: ${from2[j]})`, cleanHere, from2[j]);
      await waitUntil("the unit lens's budget is stored in the workspace settings", async () => {
        const text = workspaceSettings() ?? "";
        return { ok: new RegExp(`"sessionls\\.budget"\\s*:\\s*${from2[j]}\\b`).test(text), detail: `${SETTINGS_FILE}: ${text}` };
      });
      await clickStatusItem(page);
      await answerBudgetBox(page, budget);
      await checkEditor(page, `clean.jsonl, budget ${budget} again`, cleanBudget, budget);
    }

    // 5. Fix demo.jsonl by typing: the server follows the edits, the file now
    // loads, and the cutoff lens lands where the CLI cuts the same text.
    await openFile(page, "demo.jsonl");
    for (const f of loadErrors) {
      await goToLine(page, f.line);
      await page.keyboard.press("Home");
      await page.keyboard.press("Home"); // the first Home may stop at the indentation
      await chord(page, "Shift", "End");
      await page.keyboard.type(fixed[f.line - 1]);
    }
    await chord(page, "Control", "KeyS");
    await checkEditor(page, `demo.jsonl fixed in the editor, budget ${budget}`, fixedBudget, budget);
    const saved = fs.readFileSync(demoPath, "utf8");
    if (saved !== fixedText) {
      throw new Error(`the saved demo.jsonl differs from the text the test meant to type:\n${saved}`);
    }
    const final = await screenshot(page, "demo-fixed-budget");
    fs.copyFileSync(final, path.join(OUT, "final.png"));

    // 6. Restart Server and Show Output from the palette.
    await runCommand(page, "sessionls: Restart Server");
    await runCommand(page, "sessionls: Show Output");
    await waitUntil("the sessionls output channel shows the restart", async () => {
      const text = await page.evaluate(() => (document.querySelector(".part.panel .view-lines")?.textContent || "").replace(/\u00a0/g, " "));
      const after = text.split("restart requested: restarting the server")[1] || "";
      return { ok: /serve \(found via bundled\)/.test(after), detail: `output view: ${text.slice(-800)}` };
    });
    await chord(page, "Control", "KeyJ");
    // A new server knows the text only from didOpen: an edit proves it is live.
    await goToLine(page, 12);
    await page.keyboard.press("End");
    await page.keyboard.press("Enter");
    await page.keyboard.type('{"role":"user","content":"one more"}');
    const moreText = `${fixedText.replace(/\n$/, "")}\n{"role":"user","content":"one more"}\n`;
    const moreBudget = factsFor("demo-more.jsonl", moreText, budget);
    await checkEditor(page, "demo.jsonl after sessionls: Restart Server and an edit", moreBudget, budget);
    await chord(page, "Control", "KeyZ");
    await chord(page, "Control", "KeyZ");
    await chord(page, "Control", "KeyS");
    await checkEditor(page, "demo.jsonl after undo", fixedBudget, budget);

    // 7. A sessionls.path that names nothing: the error notification with
    // the fix; then the setting is removed and the server comes back.
    const settingsBefore = fs.readFileSync(SETTINGS_FILE, "utf8");
    const withPath = JSON.parse(settingsBefore);
    withPath["sessionls.path"] = "/nonexistent/sessionls";
    writeSettings(withPath);
    await waitUntil("the missing-binary notification", async () => {
      const text = await notificationsText(page);
      const ok =
        text.includes("/nonexistent/sessionls") &&
        text.includes("go install github.com/sessionls/sessionls/cmd/sessionls@latest") &&
        text.includes("Open Setting");
      return { ok, detail: `notifications: ${text}` };
    });
    await waitUntil("no lenses without a server", async () => {
      const n = Object.keys((await readEditor(page)).lenses).length;
      return { ok: n === 0, detail: `${n} lines still have lenses` };
    });
    await screenshot(page, "missing-binary");
    const button = await page.evaluateHandle(() =>
      [...document.querySelectorAll(".notifications-toasts .monaco-button")].find((b) => b.textContent.trim() === "Open Setting") || null,
    );
    if (!button.asElement()) {
      throw new Error("the notification has no Open Setting button");
    }
    await button.asElement().click();
    await waitUntil("the settings editor searches sessionls.path in the Workspace tab", async () => {
      const ok = await page.evaluate(() => {
        const tab = document.querySelector(".tabs-container .tab.active")?.getAttribute("aria-label") || "";
        const search = document.querySelector(".settings-editor .suggest-input-container textarea, .settings-editor .search-container textarea, .settings-editor .search-container input");
        const value = search ? search.value : "";
        const shown = [...document.querySelectorAll(".settings-editor .setting-item-contents")].map((e) => e.textContent).join("\n");
        // The bad value lives in .vscode/settings.json: the Workspace tab.
        const scope = document.querySelector(".settings-editor .settings-tabs-widget .action-label.checked")?.textContent || "";
        return { ok: tab.includes("Settings") && value.includes("sessionls.path") && shown.includes("SESSIONLS_PATH") && scope.includes("Workspace"), scope };
      });
      return { ok: ok.ok, detail: `scope tab: ${ok.scope}` };
    });
    await screenshot(page, "missing-binary-open-setting");
    restoreSettings(settingsBefore);
    await openFile(page, "demo.jsonl");
    await checkEditor(page, "demo.jsonl after sessionls.path was removed", fixedBudget, budget);

    // 8. sessionls.checks applies without a restart.
    const withChecks = JSON.parse(settingsBefore);
    withChecks["sessionls.checks"] = ["orphan-tool-result", "budget-cutoff"];
    writeSettings(withChecks);
    const fixedQuiet = factsFor("demo-fixed.jsonl", fixedText, budget, withChecks["sessionls.checks"]);
    await checkEditor(page, "demo.jsonl with sessionls.checks turning two checks off", fixedQuiet, budget);
    restoreSettings(settingsBefore);
    await checkEditor(page, "demo.jsonl with every check back on", fixedBudget, budget);
    // 9. The status bar item is only for session files.
    await openFile(page, "settings.json");
    await waitUntil("no sessionls status bar item on settings.json", async () => {
      const got = await statusBarText(page);
      return { ok: got === null, detail: `status bar: ${got}` };
    });
    await openFile(page, "demo.jsonl");
    await waitUntil("the status bar item is back on demo.jsonl", async () => {
      const got = await statusBarText(page);
      return { ok: got === expectedStatus(fixedBudget, budget), detail: `status bar: ${got}` };
    });

    // 10. sessionls.files: a .log file becomes a session file (the client
    // restarts with the new document selector; the server gets the globs).
    await openFile(page, "session.log");
    await sleep(1500);
    const before = await readEditor(page);
    if (Object.keys(before.lenses).length !== 0 || (await statusBarText(page)) !== null) {
      throw new Error(`session.log is not a session file yet, but shows lenses ${JSON.stringify(before.lenses)} or a status`);
    }
    const withFiles = JSON.parse(settingsBefore);
    withFiles["sessionls.files"] = ["**/*.jsonl", "**/*.log"];
    writeSettings(withFiles);
    await checkEditor(page, "session.log once sessionls.files names *.log", factsFor("session.log", cleanText, budget), budget);
    await screenshot(page, "session-log");
    restoreSettings(settingsBefore);
    await waitUntil("session.log is no session file once the glob is gone", async () => {
      const n = Object.keys((await readEditor(page)).lenses).length;
      const status = await statusBarText(page);
      return { ok: n === 0 && status === null, detail: `${n} lines with lenses, status ${status}` };
    });

    // 11. The server's code action trims the lines above the cutoff. It is
    // offered on the faded lines (where its diagnostic is), not on the
    // first kept line.
    await openFile(page, "demo.jsonl");
    const first = fixedBudget.withBudget.cutoff.firstKeptLine;
    await goToLine(page, first - 1);
    await runCommand(page, "Refactor...");
    const actionTitle = `Trim ${plural(first - 1, "line", "lines")} above the budget cutoff`;
    await waitUntil(`the refactor menu offers "${actionTitle}"`, async () => {
      const text = await page.evaluate(() => [...document.querySelectorAll(".action-widget")].map((e) => e.textContent).join("\n"));
      return { ok: text.includes(actionTitle), detail: `menu: ${text}` };
    });
    await page.keyboard.press("Enter");
    const trimmedText = fixed.slice(first - 1).join("\n");
    const trimmed = factsFor("demo-trimmed.jsonl", trimmedText, budget);
    await checkEditor(page, "demo.jsonl after the trim code action", trimmed, budget);
    await chord(page, "Control", "KeyS");
    await waitUntil("the trimmed demo.jsonl is saved", async () => {
      const saved = fs.readFileSync(demoPath, "utf8");
      return { ok: saved === trimmedText, detail: `saved:\n${saved}` };
    });
    await screenshot(page, "demo-trimmed");

    // 12. sessionls.toml in the workspace sets the budget when the editor
    // has none: the cutoff lands where `sessionls check` cuts for that
    // budget; changing the file (the server watches it) moves it.
    const noBudget = JSON.parse(settingsBefore);
    delete noBudget["sessionls.budget"];
    writeSettings(noBudget);
    const tomlPath = path.join(WORKSPACE, "sessionls.toml");
    const cleanUnits = cleanBudget.units;
    if (cleanUnits.length < 3) {
      throw new Error(`clean.jsonl has ${cleanUnits.length} units; the config step needs 3`);
    }
    const newest = (k) => cleanUnits.slice(-k).reduce((sum, u) => sum + u.chars, 0);
    const [tomlBudget, tomlBudget2] = [newest(2), newest(3)];
    fs.writeFileSync(tomlPath, `# written by the e2e test\nbudget = ${tomlBudget}\n`);
    await openFile(page, "clean.jsonl");
    await checkEditor(page, `clean.jsonl under sessionls.toml budget = ${tomlBudget}, no editor budget`,
      factsFor("clean.jsonl", cleanText, tomlBudget), tomlBudget);
    await screenshot(page, "clean-sessionls-toml");
    fs.writeFileSync(tomlPath, `# written by the e2e test\nbudget = ${tomlBudget2}\n`);
    await checkEditor(page, `clean.jsonl after sessionls.toml changed to budget = ${tomlBudget2}`,
      factsFor("clean.jsonl", cleanText, tomlBudget2), tomlBudget2);
    // 12b. With sessionls.toml governing the file, "Set Context Budget"
    // asks where the budget goes; choosing the file writes it there (the
    // comment kept) and not into the settings, and the cut follows it.
    const tomlBudget3 = newest(1);
    await runCommand(page, "sessionls: Set Context Budget");
    await answerBudgetBox(page, tomlBudget3);
    await waitUntil("Set Context Budget asks where the budget goes", async () => ({
      ok: await quickInputReady(page, "", "sessionls.toml"),
      detail: "",
    }));
    await page.keyboard.type("sessionls.toml");
    await page.keyboard.press("Enter");
    await waitUntil("the budget is written to sessionls.toml, not the settings", async () => {
      const toml = fs.readFileSync(tomlPath, "utf8");
      const settings = workspaceSettings() ?? "";
      return {
        ok: toml === `# written by the e2e test\nbudget = ${tomlBudget3}\n` && !/"sessionls\.budget"/.test(settings),
        detail: `sessionls.toml: ${JSON.stringify(toml)}\nsettings: ${settings}`,
      };
    });
    await checkEditor(page, `clean.jsonl after Set Context Budget wrote budget = ${tomlBudget3} to sessionls.toml`,
      factsFor("clean.jsonl", cleanText, tomlBudget3), tomlBudget3);
    fs.rmSync(tomlPath);
    restoreSettings(settingsBefore);

    // 13. Fixes: a quick fix from the light bulb menu (Ctrl+.) repairs
    // line 1; then a save runs source.fixAll.sessionls through
    // editor.codeActionsOnSave, and the file on disk is exactly what
    // `sessionls check --fix` writes, with no fixable squiggle left.
    const withFixAll = JSON.parse(settingsBefore);
    withFixAll["editor.codeActionsOnSave"] = { "source.fixAll.sessionls": "explicit" };
    writeSettings(withFixAll);
    await openFile(page, "fixme.jsonl");
    await checkEditor(page, "fixme.jsonl as written", factsFor("fixme.jsonl", fixmeText, budget), budget);
    await goToLine(page, 1);
    await chord(page, "Control", "Period");
    const quickFixTitle = "Remove the trailing comma";
    await waitUntil(`the light bulb menu offers "${quickFixTitle}" and fix-all`, async () => {
      const text = await page.evaluate(() => [...document.querySelectorAll(".action-widget")].map((e) => e.textContent).join("\n"));
      return { ok: text.includes(quickFixTitle) && text.includes("Fix all safe sessionls findings"), detail: `menu: ${text}` };
    });
    await page.keyboard.press("Enter");
    const firstFixed = fixmeText.split("\n");
    firstFixed[0] = fixmeFixed.split("\n")[0];
    const afterQuickFix = firstFixed.join("\n");
    await checkEditor(page, "fixme.jsonl after the quick fix on line 1", factsFor("fixme-quickfix.jsonl", afterQuickFix, budget), budget);
    await chord(page, "Control", "KeyS");
    await waitUntil("the save ran fix-all: fixme.jsonl on disk equals check --fix's output", async () => {
      const saved = fs.readFileSync(path.join(WORKSPACE, "fixme.jsonl"), "utf8");
      return { ok: saved === fixmeFixed, detail: `saved:\n${JSON.stringify(saved)}\nwant:\n${JSON.stringify(fixmeFixed)}` };
    });
    await checkEditor(page, "fixme.jsonl after fix-all on save", factsFor("fixme-fixed.jsonl", fixmeFixed, budget), budget);
    await screenshot(page, "fixme-fixed");
    restoreSettings(settingsBefore);

    // 14. sessionls.tokens: each unit lens adds its token count (resolved
    // lazily by the server), equal to `sessionls budget --tokens`'s.
    const tokRun = spawnSync(BIN, ["budget", "--tokens", "--isolated", "--max-chars", "1000000000", "--format", "json", path.join(WORKSPACE, "clean.jsonl")], { encoding: "utf8" });
    const tokUnits = JSON.parse(tokRun.stdout).units;
    if (!tokUnits || tokUnits.length === 0 || tokUnits.some((u) => typeof u.tokens !== "number")) {
      throw new Error(`budget --tokens gave no token counts: ${tokRun.stdout} ${tokRun.stderr}`);
    }
    const withTokens = JSON.parse(settingsBefore);
    withTokens["sessionls.tokens"] = true;
    writeSettings(withTokens);
    await openFile(page, "clean.jsonl");
    await waitUntil("sessionls.tokens: every unit lens shows the tokens of budget --tokens", async () => {
      const lenses = (await readEditor(page)).lenses;
      const missing = tokUnits.filter((u) => !(lenses[u.startLine] || []).some((t) => t.startsWith(`${fmt(u.chars)} chars · ≈ ${fmt(u.tokens)} tokens · `)));
      return { ok: missing.length === 0, detail: `missing ${JSON.stringify(missing)}\nlenses ${JSON.stringify(lenses)}` };
    });
    // The ✂ lens and the status bar add the kept units' tokens: budget
    // --tokens's cutoff.keptTokens at the same budget.
    const tokCut = JSON.parse(
      spawnSync(BIN, ["budget", "--tokens", "--isolated", "--max-chars", String(budget), "--format", "json", path.join(WORKSPACE, "clean.jsonl")], { encoding: "utf8" }).stdout,
    ).cutoff;
    if (!tokCut || typeof tokCut.keptTokens !== "number") {
      throw new Error(`budget --tokens --max-chars ${budget} gave no kept tokens for clean.jsonl: ${JSON.stringify(tokCut)}`);
    }
    const cutTokens = `✂ budget ${fmt(budget)} · keeps `;
    const keptTokens = ` · ${fmt(tokCut.keptChars)} chars · ≈ ${fmt(tokCut.keptTokens)} tokens · `;
    await waitUntil(`sessionls.tokens: the ✂ lens on line ${tokCut.firstKeptLine} shows budget --tokens's kept tokens`, async () => {
      const lenses = (await readEditor(page)).lenses;
      const got = lenses[tokCut.firstKeptLine] || [];
      return { ok: got.some((t) => t.startsWith(cutTokens) && t.includes(keptTokens)), detail: `want "${cutTokens}…${keptTokens}…"\ngot ${JSON.stringify(got)}` };
    });
    const tokStatus = `✂ budget ${fmt(budget)} keeps ${plural(tokCut.keptChars, "char", "chars")} · ≈ ${plural(tokCut.keptTokens, "token", "tokens")}`;
    await waitUntil(`sessionls.tokens: status bar "${tokStatus}"`, async () => {
      const got = await statusBarText(page);
      return { ok: got === tokStatus, detail: `want ${JSON.stringify(tokStatus)}\ngot  ${JSON.stringify(got)}` };
    });
    await screenshot(page, "clean-tokens");
    restoreSettings(settingsBefore);

    // 15. Fix-all from the command palette ("sessionls: Fix All Safe
    // Findings"), as ESLint and ruff offer it: the buffer, saved, equals
    // `sessionls check --fix`'s output.
    await openFile(page, "fixme2.jsonl");
    await checkEditor(page, "fixme2.jsonl as written", factsFor("fixme2.jsonl", fixmeText, budget), budget);
    await runCommand(page, "sessionls: Fix All Safe Findings");
    await chord(page, "Control", "KeyS");
    await waitUntil("the palette's Fix All Safe Findings: fixme2.jsonl on disk equals check --fix's output", async () => {
      const saved = fs.readFileSync(path.join(WORKSPACE, "fixme2.jsonl"), "utf8");
      return { ok: saved === fixmeFixed, detail: `saved:\n${JSON.stringify(saved)}\nwant:\n${JSON.stringify(fixmeFixed)}` };
    });

    // 16. A session of 50 MB or more: VS Code gives the extension no
    // document, so no diagnostics or lenses; the extension says why and
    // offers the CLI.
    await openFile(page, "big.jsonl");
    await waitUntil("a 51 MB session gets the extension's large-file hint", async () => {
      const text = (await notificationsText(page)) || "";
      return { ok: text.includes("VS Code does not give extensions files of 50 MB or more"), detail: `notifications:\n${text}` };
    });
    await screenshot(page, "big-hint");

    // 17. The context map in a webview (after the big file, whose
    // notification would otherwise cover the page).
    await contextMapSteps(page);

    // 18. The BOM VS Code hides, and its quick fix.
    await bomSteps(page);

    // 19. More lenses than VS Code gets resolved.
    await manyLensSteps(page);

    // 20. Claude Code and Codex CLI transcripts.
    await dialectSteps(page);

    const failures = (await notificationsText(page)).match(/Sending notification[^\n]*failed/);
    if (failures) {
      throw new Error(`a notification reports a failed message: ${failures[0]}`);
    }
  });
}

let browserProcess = null;
const overall = setTimeout(() => {
  console.error(`FAIL: the test did not finish within ${TOTAL_TIMEOUT_MS / 1000}s`);
  if (browserProcess) {
    browserProcess.kill("SIGKILL");
  }
  process.exit(1);
}, TOTAL_TIMEOUT_MS);

main().then(
  () => {
    clearTimeout(overall);
    log(`PASS: ${checksPassed} checks`);
  },
  (err) => {
    clearTimeout(overall);
    console.error(`FAIL: ${err.message}`);
    process.exitCode = 1;
  },
);
