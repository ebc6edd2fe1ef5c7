// Renders a sessionls map page in headless Chromium and checks its live DOM
// against what `sessionls budget --format json` says of the same file:
//
//   node dom.mjs PAGE.html EXPECT.json [SCREENSHOT.png]
//
// EXPECT.json: {"units", "firstKeptLine" (0: no cutoff), "totalChars",
// "totalTokens" (null: none counted), "loads"}. puppeteer-core comes from
// $MAP_DOM_DIR (install.sh's directory); Chromium from $CHROMIUM, else
// /usr/bin/chromium. Prints what it found as JSON on stdout; exits 1 on a
// mismatch (each one on stderr), 2 when it cannot run.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pageFile, expectFile, shot] = process.argv.slice(2);
if (!pageFile || !expectFile || !process.env.MAP_DOM_DIR) {
  console.error("usage: MAP_DOM_DIR=DIR node dom.mjs PAGE.html EXPECT.json [SCREENSHOT.png]");
  process.exit(2);
}
const require = createRequire(path.join(process.env.MAP_DOM_DIR, "package.json"));
const puppeteer = require("puppeteer-core");
const want = JSON.parse(readFileSync(expectFile, "utf8"));

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--lang=en-US"],
  defaultViewport: { width: 1280, height: 900 },
});
const failures = [];
let got;
try {
  const page = await browser.newPage();
  const outside = [];
  const errors = [];
  page.on("request", (r) => {
    if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) outside.push(r.url());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page.goto(pathToFileURL(path.resolve(pageFile)).href, { waitUntil: "load" });

  got = await page.evaluate(() => {
    const num = (el, a) => (el ? Number(el.getAttribute(a)) : null);
    const firsts = [...document.querySelectorAll("#strip a[data-bin][data-units]")];
    const pieces = [...document.querySelectorAll("#strip a[data-bin]")];
    const sum = (els, a) => els.reduce((s, el) => s + Number(el.getAttribute(a)), 0);
    const roles = [...document.querySelectorAll("#roles tbody tr")];
    const tools = [...document.querySelectorAll("#tools tbody tr")];
    const cut = document.getElementById("cutoff");
    const firstKept = firsts.find((a) => a.getAttribute("data-kept") === "true");
    // Where the cutoff is drawn against where the first kept unit starts.
    let cutGap = null;
    if (cut && firstKept) {
      const c = cut.getBoundingClientRect(), k = firstKept.getBoundingClientRect();
      cutGap = { dx: Math.abs(c.left + c.width / 2 - k.left), sameRow: c.top <= k.top && c.bottom >= k.bottom };
    }
    const invisible = pieces.filter((a) => { const r = a.getBoundingClientRect(); return r.width <= 0 || r.height <= 0; }).length;
    return {
      units: num(document.getElementById("units"), "data-units"),
      binUnits: sum(firsts, "data-units"),
      bins: firsts.length,
      distinctBins: new Set(pieces.map((a) => a.getAttribute("data-bin"))).size,
      pieces: pieces.length,
      invisible,
      withoutLine: pieces.filter((a) => !(Number(a.getAttribute("data-line")) > 0) || !a.getAttribute("href")).length,
      firstKeptLine: cut ? Number(cut.getAttribute("data-first-kept-line")) : 0,
      cutLabel: cut ? cut.textContent.trim() : "",
      firstKeptBinLine: firstKept ? Number(firstKept.getAttribute("data-line")) : 0,
      cutGap,
      roleChars: sum(roles, "data-chars"),
      roleTokens: sum(roles, "data-tokens"),
      roleMessages: sum(roles, "data-messages"),
      toolChars: sum(tools, "data-chars"),
      toolRoleChars: roles.length === 3 ? Number(roles[2].getAttribute("data-chars")) : null,
      loadFailure: !!document.getElementById("load-failure"),
      refusedMarkers: document.querySelectorAll("#strip a.ref").length,
      bytes: document.documentElement.outerHTML.length,
    };
  });

  // Pointing at a unit shows its lines, messages and cost.
  const first = await page.$("#strip a[data-bin][data-units]");
  if (first) {
    await first.hover();
    got.info = await page.$eval("#info", (el) => el.textContent);
    got.lit = await page.$$eval("#strip a.hl", (els) => els.length);
  }
  got.outside = outside;
  got.errors = errors;
  if (shot) await page.screenshot({ path: shot, fullPage: true });
} finally {
  await browser.close();
}

const check = (ok, what) => { if (!ok) failures.push(what); };
check(got.units === want.units, `#units says ${got.units} units; budget lists ${want.units}`);
check(got.binUnits === want.units, `the bins hold ${got.binUnits} units; budget lists ${want.units}`);
check(got.bins === got.distinctBins, `${got.bins} bins carry data, ${got.distinctBins} are drawn`);
check(got.invisible === 0, `${got.invisible} pieces of the strip have no area`);
check(got.withoutLine === 0, `${got.withoutLine} pieces have no line or link`);
check(got.firstKeptLine === want.firstKeptLine, `the cutoff is drawn at line ${got.firstKeptLine}; budget's firstKeptLine is ${want.firstKeptLine}`);
check(got.firstKeptBinLine === want.firstKeptLine, `the first kept unit starts at line ${got.firstKeptBinLine}; budget's firstKeptLine is ${want.firstKeptLine}`);
if (want.firstKeptLine > 0) {
  check(got.cutLabel.includes(`keeps from line ${want.firstKeptLine}`), `the cutoff's label is ${JSON.stringify(got.cutLabel)}`);
  check(got.cutGap && got.cutGap.dx <= 2 && got.cutGap.sameRow, `the cutoff line is not at the first kept unit's left edge: ${JSON.stringify(got.cutGap)}`);
}
if (want.loads) {
  check(got.roleChars === want.totalChars, `the roles sum to ${got.roleChars} chars; totalChars is ${want.totalChars}`);
  if (want.totalTokens !== null) check(got.roleTokens === want.totalTokens, `the roles sum to ${got.roleTokens} tokens; totalTokens is ${want.totalTokens}`);
}
check(got.toolChars === got.toolRoleChars, `the tool rows sum to ${got.toolChars} chars; the tool role has ${got.toolRoleChars}`);
check(got.loadFailure === !want.loads, `load failure banner ${got.loadFailure}; the file ${want.loads ? "loads" : "does not load"}`);
if (got.bins > 0) {
  check(/line/.test(got.info || "") && /chars/.test(got.info || "") && /from newest/.test(got.info || ""), `hovering a unit shows ${JSON.stringify(got.info)}`);
  check(got.lit >= 1, "hovering a unit lights none of its pieces");
}
check(got.outside.length === 0, `the page loaded from outside itself: ${got.outside.join(", ")}`);
check(got.errors.length === 0, `errors in the page: ${got.errors.join("; ")}`);

console.log(JSON.stringify(got));
for (const f of failures) console.error("FAIL: " + f);
process.exit(failures.length ? 1 : 0);
