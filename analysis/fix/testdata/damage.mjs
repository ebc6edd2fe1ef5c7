// damage.mjs OUTDIR: session files damaged the ways real writers damage
// them, each written with node's own fs.promises.appendFile (the runtime's
// writer), then hurt as a crash, a killed writer or a file system does.
// For each file NAME.jsonl it writes NAME.json: {"records": [every record
// the writers meant, as the line appendFile was given, without "\n"],
// "lost": [indexes of records the damage destroyed]}.
import { appendFile, writeFile, truncate, open, stat, rm } from "node:fs/promises";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const out = process.argv[2];
const C = 524288;
let seq = 0;

// A deterministic generator (the files must be the same on every run).
let seed = 12345;
function rnd(n) {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
}
const alphabet = ["a", "b", "é", "中", "文", "😀", " ", "\n", "\"", "\\", "x", "ß"];
function text(n) {
  let s = "";
  while (s.length < n) s += alphabet[rnd(alphabet.length)];
  return s;
}
function tool(id, n) {
  return JSON.stringify({ role: "tool", content: text(n), toolCallId: id, isError: false });
}
function asst(id) {
  return JSON.stringify({ role: "assistant", content: "calling", toolCalls: [{ id, name: "run", input: { cmd: text(20) } }] });
}
function user(n) {
  return JSON.stringify({ role: "user", content: text(n) });
}

// fresh creates NAME.jsonl empty, for the writers to append to, and
// returns its path.
async function fresh(name) {
  const p = join(out, name + ".jsonl");
  await writeFile(p, "");
  return p;
}

async function save(name, records, lost) {
  await writeFile(join(out, name + ".json"), JSON.stringify({ records, lost }));
}

// Two or three writers appending at once: large records (several
// 524,288-byte writes) interleave with each other and with small ones.
async function concurrent(k) {
  const name = `concurrent-${k}`;
  const p = await fresh(name);
  const records = [];
  for (let i = 0; i < 3; i++) {
    records.push(asst(`c${k}_${i}`));
    await appendFile(p, records.at(-1) + "\n");
    const batch = [tool(`c${k}_${i}`, 300000 + rnd(400000)), user(50 + rnd(200))];
    if (k % 2 === 1) batch.push(user(100));
    if (k % 3 === 2) batch.push(tool(`c${k}_${i}`, 200000 + rnd(300000)));
    records.push(...batch);
    await Promise.all(batch.map((r) => appendFile(p, r + "\n")));
  }
  await save(name, records, []);
}

// A writer killed mid-append: RLIMIT_FSIZE stops its write at a block
// boundary (SIGXFSZ kills it), then a new writer appends after the cut.
async function killed(k) {
  const name = `killed-${k}`;
  const p = join(out, name + ".jsonl");
  const records = [user(100), asst(`k${k}`), tool(`k${k}`, 200000 + rnd(900000))];
  const limitBlocks = 1 + Math.floor((records[0].length + records[1].length + 2 + records[2].length / 2) / 512);
  const input = join(out, name + ".in");
  await writeFile(input, JSON.stringify(records));
  const script = `const fs = require("node:fs/promises"); (async () => { for (const r of JSON.parse(await fs.readFile(process.argv[1], "utf8"))) await fs.appendFile(process.argv[2], r + "\\n"); })();`;
  await writeFile(p, "");
  // dash's ulimit -f counts 512-byte blocks.
  spawnSync("sh", ["-c", `ulimit -f ${limitBlocks}; exec "$0" -e "$1" "$2" "$3"`, process.execPath, script, input, p], { stdio: "ignore" });
  await rm(input);
  const after = [user(80), tool(`k${k}`, k % 2 ? 700000 : 1000)];
  for (const r of after) await appendFile(p, r + "\n");
  records.push(...after);
  await save(name, records, [2]);
}

// A crash tail: the file's size reached the disk, its last blocks did not
// (ext4's delayed allocation), so they read as NULs; then, after the
// restart, the writer appended more.
async function nulTail(k) {
  const name = `nultail-${k}`;
  const p = await fresh(name);
  const records = [user(100), asst(`n${k}`), tool(`n${k}`, 3000 + rnd(5000))];
  for (const r of records) await appendFile(p, r + "\n");
  const size = (await stat(p)).size;
  const keep = Math.floor((size - records[2].length / 2) / 4096) * 4096;
  // The crash: every byte from the last block boundary reads as zero.
  await truncate(p, keep);
  await truncate(p, size);
  const lost = [];
  let off = 0;
  records.forEach((r, i) => {
    if (off + r.length + 1 > keep) lost.push(i);
    off += Buffer.byteLength(r) + 1;
  });
  if (k % 2 === 1) {
    records.push(user(60));
    await appendFile(p, records.at(-1) + "\n");
  }
  await save(name, records, lost);
}

// A zeroed block in the middle of a file (a lost page).
async function zeroedPage(k) {
  const name = `zeroed-${k}`;
  const p = await fresh(name);
  const records = [];
  for (let i = 0; i < 12; i++) {
    records.push(i % 3 === 2 ? tool(`z${i - 1}`, 500 + rnd(1500)) : i % 3 === 1 ? asst(`z${i}`) : user(200 + rnd(800)));
    await appendFile(p, records.at(-1) + "\n");
  }
  const page = 4096 * (1 + rnd(2));
  const fh = await open(p, "r+");
  await fh.write(Buffer.alloc(4096), 0, 4096, page);
  await fh.close();
  const lost = [];
  let off = 0;
  records.forEach((r, i) => {
    const end = off + Buffer.byteLength(r) + 1;
    if (end > page && off < page + 4096) lost.push(i);
    off = end;
  });
  await save(name, records, lost);
}

// A writer that emits raw line breaks inside strings.
async function rawNewlines(k) {
  const name = `split-${k}`;
  const p = await fresh(name);
  const records = [user(50), JSON.stringify({ role: "user", content: "one\ntwo\nthree " + k })];
  for (const r of records) await appendFile(p, r.replaceAll("\\n", "\n") + "\n");
  await save(name, records, []);
}

for (let k = 0; k < 6; k++) await concurrent(k);
for (let k = 0; k < 4; k++) await killed(k);
for (let k = 0; k < 2; k++) await nulTail(k);
for (let k = 0; k < 3; k++) await zeroedPage(k);
for (let k = 0; k < 2; k++) await rawNewlines(k);
