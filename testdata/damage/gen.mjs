// gen.mjs makes session files damaged the ways real ones are, with the
// runtime's real writer (writer.mjs: fs.promises.appendFile(path,
// JSON.stringify(m) + "\n")), and says exactly what each writer wrote.
//
// Usage: node gen.mjs OUTDIR SEED [CLASS=COUNT ...] [--small]
//   CLASS=COUNT  how many files of a class (default: every class, 2 each;
//                all=N sets every class)
//   --small      small records only (the shipped samples): classes that
//                need records over 512 KiB are left out
//
// For each file OUTDIR/<class>-<n>.jsonl it writes OUTDIR/<class>-<n>.truth.json:
//   {class, variant, happened, records: [{stream, append, text, written?,
//    failed?, state}]}
// text is the record's line as JSON.stringify wrote it (without "\n");
// written, when present, what the writer put in the file instead (a writer
// leaving raw newlines); failed, the error its append got; state what the
// file holds of it: "intact" (the line, whole, at the start of a physical
// line), "recoverable" (every byte present unchanged, not as a line of its
// own: interleaved chunks, joined to a cut record or NULs, raw newlines),
// "lost" (bytes missing or zeroed), "absent" (no byte landed: an append
// that failed with nothing written, or never made before a kill). It
// prints a JSON summary on stdout (a class it cannot make here, for want
// of prlimit or of the right to mount, is listed as skipped, with why).
//
// A file's variant is chosen by its number (so that a few files of a
// class cover its variants); the rest is deterministic given the seed,
// except where the kernel decides (which writer's chunk lands first, when
// a kill lands): there the truth records what happened, and a file is made
// again (up to a bound) until the damage it is named for really happened.
//
// Classes:
//   interleave-2, interleave-3  two or three writers (processes or promises)
//                               appending records over 512 KiB at once
//   kill           SIGKILL of the writer in the middle of an append
//   efbig          RLIMIT_FSIZE (prlimit --fsize) cuts an append: EFBIG
//   enospc         a small tmpfs fills up: ENOSPC (skipped if mount fails)
//   nul-tail       crash tail: the size covers data never written (zeros)
//   nul-hole       zeroed 4 KiB pages in the middle of the file
//   raw-newline    a writer that leaves newlines in strings raw
//   lost-assistant an assistant record over 512 KiB fired without waiting,
//                  its tool results landing inside it; the writer killed

import { spawnSync } from "node:child_process";
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHUNK, assistant, conversation, layout, rawNewlines, rng, states, text, tool } from "./lib.mjs";
import { runWriter, startWriter } from "./run-writer.mjs";

const PAGE = 4096;
const MAX_ATTEMPTS = 60;

// ---- running writers --------------------------------------------------------

// failedSteps marks the appends the writer reported failed.
function failedSteps(events, chain = 0) {
  const out = new Map();
  for (const ev of events) if (ev.event === "error" && ev.chain === chain) out.set(ev.step, ev.code);
  return out;
}

// ---- the truth ------------------------------------------------------------

// truth builds a file's ground truth from its streams (lists of {m, buf,
// raw, failed}) and its layout.
function truth(data, lay, streams) {
  const exact = streams.map((s) => s.map((ap) => !ap.raw));
  const st = states(data, lay, exact);
  const records = [];
  streams.forEach((s, si) =>
    s.forEach((ap, a) => {
      const rec = { stream: si, append: a, text: JSON.stringify(ap.m), state: st[si][a] };
      if (ap.raw) rec.written = ap.buf.toString("utf8").replace(/\n$/, "");
      if (ap.failed) rec.failed = ap.failed;
      records.push(rec);
    }),
  );
  return records;
}

const appendOf = (m, raw = false) => ({ m, raw, buf: Buffer.from((raw ? rawNewlines(m) : JSON.stringify(m)) + "\n") });

// splits counts the appends whose chunks are not contiguous, and those of
// them whose chunks are all in the file.
function splits(lay) {
  let split = 0;
  let whole = 0;
  lay.where.forEach((appends, s) =>
    appends.forEach((pieces, a) => {
      const contiguous = pieces.every((p, i) => i === 0 || pieces[i - 1].off + pieces[i - 1].len === p.off);
      if (pieces.length > 1 && !contiguous) {
        split++;
        if (pieces.length === lay.chunksOf[s][a].length && !pieces.some((p) => p.partial)) whole++;
      }
    }),
  );
  return { split, whole };
}

// ensureBig makes the largest tool result of msgs at least min bytes long.
function ensureBig(r, msgs, min, max) {
  if (msgs.some((m) => Buffer.byteLength(JSON.stringify(m)) > CHUNK)) return;
  const tools = msgs.filter((m) => m.role === "tool");
  tools[r.int(tools.length)].content = text(r, r.range(min, max));
}

// ---- classes ----------------------------------------------------------------

const BIG = { p: 0.5, min: 530 * 1024, max: 1200 * 1024 };
const SMALL = { p: 0, min: 0, max: 0 };

async function interleave(r, path, work, n, i) {
  let variant = ["promises", "processes"][i % 2];
  let note = "";
  const msgs = [];
  // Separate processes: one turn whose every tool result is large, so that
  // writers started together are writing large records at the same time.
  const big = variant === "processes" ? { ...BIG, p: 1 } : BIG;
  for (let w = 0; w < n; w++) {
    const m = conversation(r, `w${w}`, variant === "processes" ? 1 : r.range(1, 2), big);
    ensureBig(r, m, BIG.min, BIG.max);
    msgs.push(m);
  }
  const streams = msgs.map((ms) => ms.map((m) => appendOf(m)));
  for (let attempt = 1; attempt <= 2 * MAX_ATTEMPTS; attempt++) {
    if (attempt > MAX_ATTEMPTS && variant === "processes") {
      // A loaded machine can keep separate processes from ever writing at
      // the same moment: then write as promises in one process (which
      // interleave at once), and say so.
      variant = "promises";
      note = ` (processes did not interleave in ${MAX_ATTEMPTS} attempts)`;
    }
    rmSync(path, { force: true });
    if (variant === "promises") {
      await runWriter({ path, chains: msgs.map((ms) => ms.map((m) => ({ m }))) }, work);
    } else {
      const ws = msgs.map((ms) => startWriter({ path, chains: [ms.map((m) => ({ m }))], sync: true }, work));
      await Promise.all(ws.map((w) => w.until((e) => e.event === "ready")));
      const at = Date.now() + 150;
      for (const w of ws) w.child.stdin.write(`go ${at}\n`);
      await Promise.all(ws.map((w) => w.exited));
    }
    const data = readFileSync(path);
    const lay = layout(data, streams);
    if (lay.rest !== 0) throw new Error(`${path}: ${lay.rest} bytes explained by no writer's chunk`);
    const { split, whole } = splits(lay);
    if (split === 0) continue;
    const chunkLens = lay.order.filter((o) => !isLast(lay, o)).map((o) => o.len);
    return {
      variant: `${n} ${variant}${note}`,
      happened: {
        attempts: attempt,
        splitRecords: split,
        splitRecordsWhole: whole, // every piece in the file

        chunks: lay.order.length,
        // every chunk but an append's last is node's 524,288 bytes
        innerChunksOfMaxSize: chunkLens.every((l) => l === CHUNK),
        order: lay.order.map((o) => `${o.stream}.${o.append}.${o.chunk}:${o.len}`).join(" "),
      },
      records: truth(data, lay, streams),
    };
  }
  throw new Error(`${path}: no interleave in ${2 * MAX_ATTEMPTS} attempts`);
}

const isLast = (lay, o) => o.chunk === lay.chunksOf[o.stream][o.append].length - 1;

async function kill(r, path, work, small, i) {
  const msgs = conversation(r, "k", r.range(2, 3), { p: 0.6, min: 1100 * 1024, max: 2000 * 1024 });
  ensureBig(r, msgs, 1100 * 1024, 2000 * 1024);
  const streams = [msgs.map((m) => appendOf(m))];
  const ends = new Set([0]);
  let total = 0;
  for (const ap of streams[0]) ends.add((total += ap.buf.length));
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    rmSync(path, { force: true });
    const threshold = Math.floor(total * (0.15 + 0.8 * r.float()));
    const w = startWriter({ path, chains: [msgs.map((m) => ({ m }))], sync: true, delay: [0, 3] }, work);
    await w.until((e) => e.event === "ready");
    w.child.stdin.write("go\n");
    let killedAt = -1;
    let alive = true;
    w.exited.then(() => (alive = false));
    // Watch the size; kill the moment the file ends inside a record past
    // the threshold (between two of node's write() calls of one append).
    while (alive) {
      let size = 0;
      try {
        size = statSync(path).size;
      } catch {}
      if (size >= threshold && !ends.has(size)) {
        w.child.kill("SIGKILL");
        killedAt = size;
        break;
      }
      await new Promise((res) => setImmediate(res));
    }
    await w.exited;
    const cut = readFileSync(path);
    const lay = layout(cut, streams);
    if (lay.rest !== 0) throw new Error(`${path}: ${lay.rest} bytes explained by no append`);
    if (!truth(cut, lay, streams).some((x) => x.state === "lost")) continue;
    // Half the time the session goes on in a new process: its appends
    // continue the cut record's line.
    const resumed = i % 2 === 1;
    const res = resumed ? await resume(r, path, work, "k2", cut.length, lay, streams, { p: 0.5, min: 530 * 1024, max: 800 * 1024 }) : { lay, streams };
    const data = readFileSync(path);
    return {
      variant: resumed ? "sigkill, resumed" : "sigkill",
      happened: { attempts: attempt, sizeSeenAtKill: killedAt, sizeAfterKill: cut.length, size: data.length },
      records: truth(data, res.lay, res.streams),
    };
  }
  throw new Error(`${path}: no kill landed mid-append in ${MAX_ATTEMPTS} attempts`);
}

// cutPoint returns an offset strictly inside one of the appends after the
// first (so that some complete records precede it), for a file whose
// appends have these byte lengths; align rounds it down to a multiple.
function cutPoint(r, lens, align = 1, only = () => true) {
  const starts = [];
  let off = 0;
  for (const l of lens) {
    starts.push(off);
    off += l;
  }
  for (let tries = 0; tries < 1000; tries++) {
    const k = r.range(1, lens.length - 1);
    if (!only(k)) continue;
    let p = starts[k] + 1 + r.int(lens[k] - 1);
    p -= p % align;
    if (p > starts[k] && p < starts[k] + lens[k]) return { p, k };
  }
  throw new Error("no cut point inside a record");
}

async function limited(r, path, work, kind, small, i) {
  const big = small ? SMALL : { p: 0.3, min: 530 * 1024, max: 900 * 1024 };
  const msgs = conversation(r, kind, kind === "enospc" ? r.range(5, 7) : r.range(3, 5), big);
  const resumed = i % 2 === 1;
  // Resumed, the cut falls in an assistant record, and its tool results
  // land after it (the runtime went on once space was freed or the limit
  // lifted): the assistant is lost, its results are intact. The assistant
  // gets a long answer so that a page boundary falls inside it.
  const asst = (k) => msgs[k].role === "assistant";
  if (resumed) {
    const ks = msgs.map((m, k) => k).filter((k) => k > 0 && asst(k));
    msgs[r.pick(ks)].content += text(r, r.range(5000, 9000));
  }
  const all = msgs.map((m) => appendOf(m));
  const { p } = cutPoint(r, all.map((a) => a.buf.length), kind === "enospc" ? PAGE : 1, resumed ? asst : undefined);
  const job = { path, chains: [msgs.map((m) => ({ m }))], pauseOnError: resumed };
  let mnt;
  let prefix = [];
  let file = path;
  if (kind === "enospc") {
    mnt = mkdtempSync(join(work, "tmpfs-"));
    const m = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${p}`, "tmpfs", mnt], { encoding: "utf8" });
    if (m.status !== 0) {
      rmSync(mnt, { recursive: true, force: true });
      return { skipped: `mount tmpfs refused: ${(m.stderr || m.error?.message || "").trim()}` };
    }
    file = join(mnt, "session.jsonl");
    job.path = file;
  } else {
    const has = spawnSync("prlimit", ["--version"], { encoding: "utf8" });
    if (has.status !== 0) return { skipped: `prlimit not available: ${(has.stderr || has.error?.message || "").trim()}` };
    // The soft limit only: a process may raise it back up to the hard one
    // (unlimited), which is how "resumed" lifts it.
    prefix = ["prlimit", `--fsize=${p}:unlimited`];
  }
  try {
    const w = startWriter(job, work, prefix);
    let lifted = "";
    if (resumed) {
      const ev = await w.until((e) => e.event === "error");
      if (ev) {
        const lift =
          kind === "enospc"
            ? spawnSync("mount", ["-o", `remount,size=${64 << 20}`, mnt], { encoding: "utf8" })
            : spawnSync("prlimit", ["--pid", String(w.child.pid), "--fsize=unlimited"], { encoding: "utf8" });
        if (lift.status !== 0) throw new Error(`lifting the limit: ${lift.stderr}`);
        lifted = `after step ${ev.step}`;
        w.child.stdin.write("go\n");
      }
    }
    await w.exited;
    const failed = failedSteps(w.events);
    const data = readFileSync(file);
    if (mnt) copyFileSync(file, path);
    const streams = [all.map((ap, i) => ({ ...ap, failed: failed.get(i) }))];
    const lay = layout(data, streams);
    if (lay.rest !== 0) throw new Error(`${path}: ${lay.rest} bytes explained by no append`);
    return {
      variant: resumed ? "resumed" : "stopped",
      happened: {
        limit: p,
        errors: [...failed.entries()].map(([s, c]) => `${s}:${c}`).join(" "),
        resumed: lifted,
        size: data.length,
      },
      records: truth(data, lay, streams),
    };
  } finally {
    if (mnt) {
      spawnSync("umount", [mnt]);
      rmSync(mnt, { recursive: true, force: true });
    }
  }
}

// zero writes n zero bytes at off (a page the file system lost).
function zero(path, off, n) {
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, Buffer.alloc(n), 0, n, off);
  } finally {
    closeSync(fd);
  }
}

// resume runs a new writer appending one more turn to path (whose first
// size bytes are explained by lay) and returns the layout of the whole.
async function resume(r, path, work, tag, size, lay, streams, big) {
  const more = conversation(r, tag, 1, big);
  await runWriter({ path, chains: [more.map((m) => ({ m }))] }, work);
  const data = readFileSync(path);
  const moreAps = more.map((m) => appendOf(m));
  const lay2 = layout(data.subarray(size), [moreAps]);
  if (lay2.rest !== 0) throw new Error(`${path}: the resumed appends are not where they were written`);
  return {
    streams: [...streams, moreAps],
    lay: {
      where: [...lay.where, lay2.where[0].map((ps) => ps.map((x) => ({ ...x, off: x.off + size })))],
      chunksOf: [...lay.chunksOf, ...lay2.chunksOf],
    },
  };
}

async function nulTail(r, path, work, small, i) {
  const msgs = conversation(r, "t", r.range(3, 5), SMALL);
  const all = msgs.map((m) => appendOf(m));
  await runWriter({ path, chains: [msgs.map((m) => ({ m }))] }, work);
  const clean = readFileSync(path);
  const lay = layout(clean, [all]);
  const starts = lay.where[0].map((w) => w[0].off);
  const size = clean.length;
  const variant = ["in-last-record", "last-line-of-nuls", "several-records"][i % 3];
  let p;
  if (variant === "in-last-record") p = starts[starts.length - 1] + 1 + r.int(all[all.length - 1].buf.length - 2);
  else if (variant === "last-line-of-nuls") p = starts[starts.length - 1];
  else p = starts[starts.length - 1 - r.range(1, 2)] + 1 + r.int(40);
  // ext4 with delayed allocation after a crash: the size was written, the
  // data was not; the file reads back as zeros from p to its end.
  truncateSync(path, p);
  truncateSync(path, size);
  const resumed = i % 2 === 1;
  let res = { lay, streams: [all] };
  // The session goes on after the crash: appends land after the zeros.
  if (resumed) res = await resume(r, path, work, "t2", size, lay, [all], SMALL);
  const data = readFileSync(path);
  return {
    variant: variant + (resumed ? ", resumed" : ""),
    happened: { zeroFrom: p, zeroBytes: size - p, size: data.length },
    records: truth(data, res.lay, res.streams),
  };
}

async function nulHole(r, path, work, small, i) {
  const variant = ["inside a record", "across records", "two pages"][i % 3];
  // Whole turns until the file has four pages and a bit; for a hole
  // inside a record, one tool output of 9-14 KB (a page then fits in its
  // content string, whose NULs a careless fix would escape into a record
  // that loads as if whole).
  const msgs = [];
  for (let t = 0, size = 0; size < 4.3 * PAGE || (variant === "inside a record" && t < 2); t++) {
    for (const m of conversation(r, `h${t}`, 1, SMALL)) {
      if (variant === "inside a record" && t === 1 && m.role === "tool" && !msgs.some((x) => x.big)) {
        m.content = text(r, r.range(9000, 14000));
        Object.defineProperty(m, "big", { value: true });
      }
      msgs.push(m);
      size += Buffer.byteLength(JSON.stringify(m)) + 1;
    }
  }
  const all = msgs.map((m) => appendOf(m));
  await runWriter({ path, chains: [msgs.map((m) => ({ m }))] }, work);
  const clean = readFileSync(path);
  const lay = layout(clean, [all]);
  const pages = Math.floor(clean.length / PAGE);
  // Lost pages, never the last (partial) one: the tail class is nul-tail.
  const holes = [];
  if (variant === "inside a record") {
    const k = msgs.findIndex((m) => m.big);
    const start = lay.where[0][k][0].off + 40;
    const end = lay.where[0][k][0].off + all[k].buf.length - 100;
    const first = Math.ceil(start / PAGE);
    const last = Math.floor(end / PAGE) - 1;
    if (last < first) throw new Error(`${path}: no page inside record ${k}`);
    holes.push(r.range(first, last));
  } else {
    const first = r.range(0, pages - 2);
    holes.push(first);
    if (variant === "two pages") holes.push(first + 1 + r.int(pages - 1 - first - 1));
  }
  for (const h of holes) zero(path, h * PAGE, PAGE);
  const data = readFileSync(path);
  return {
    variant,
    happened: { pages: holes.map((h) => h * PAGE).join(" "), size: data.length },
    records: truth(data, lay, [all]),
  };
}

async function rawNewline(r, path, work, small, i) {
  const msgs = conversation(r, "n", r.range(2, 4), SMALL);
  // Make sure strings hold newlines, some of them at a string's end and two
  // in a row (a physical empty line the runtime skips).
  msgs[0].content += "\nlast line\n";
  const tools = msgs.filter((m) => m.role === "tool");
  tools[r.int(tools.length)].content = "first\n\nthird\n" + tools[0].content;
  const variant = ["every record", "one record"][i % 2];
  const pickOne = r.int(msgs.length);
  const steps = msgs.map((m, i) => ({ m, raw: variant === "every record" || i === pickOne || i === 0 }));
  await runWriter({ path, chains: [steps] }, work);
  const streams = [steps.map((s) => appendOf(s.m, s.raw && rawNewlines(s.m) !== JSON.stringify(s.m)))];
  const data = readFileSync(path);
  const lay = layout(data, streams);
  if (lay.rest !== 0) throw new Error(`${path}: ${lay.rest} bytes explained by no append`);
  return { variant, happened: { size: data.length }, records: truth(data, lay, streams) };
}

async function lostAssistant(r, path, work) {
  const before = conversation(r, "a", r.range(1, 2), SMALL);
  const calls = [
    ["a-write-0", "write_file", { path: "big.txt", content: text(r, r.range(1100 * 1024, 2000 * 1024)) }],
    ["a-write-1", "bash", { cmd: "go test ./..." }],
  ];
  const asst = assistant("Writing the file and running the tests.", calls);
  const results = calls.map(([id]) => tool(id, text(r, r.range(50, 300))));
  const streams = [before.map((m) => appendOf(m)), [appendOf(asst)], ...results.map((m) => [appendOf(m)])];
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    rmSync(path, { force: true });
    const steps = [...before.map((m) => ({ m })), { together: [asst, ...results], then: "kill" }];
    await runWriter({ path, chains: [steps] }, work);
    const data = readFileSync(path);
    const lay = layout(data, streams);
    if (lay.rest !== 0) throw new Error(`${path}: ${lay.rest} bytes explained by no append`);
    const records = truth(data, lay, streams);
    const a = records.find((x) => x.stream === 1);
    const tr = records.filter((x) => x.stream >= 2);
    // What the issue describes: the assistant is not a loadable line, its
    // results are in the file.
    if (a.state === "intact" || tr.some((x) => x.state === "lost")) continue;
    return {
      variant: a.state === "lost" ? "assistant cut" : "assistant interleaved",
      happened: { attempts: attempt, order: lay.order.map((o) => `${o.stream}.${o.append}.${o.chunk}:${o.len}`).join(" ") },
      records,
    };
  }
  throw new Error(`${path}: the assistant landed whole in ${MAX_ATTEMPTS} attempts`);
}

const classes = {
  "interleave-2": { big: true, make: (r, p, w, small, i) => interleave(r, p, w, 2, i) },
  "interleave-3": { big: true, make: (r, p, w, small, i) => interleave(r, p, w, 3, i) },
  kill: { big: true, make: kill },
  efbig: { make: (r, p, w, small, i) => limited(r, p, w, "efbig", small, i) },
  enospc: { make: (r, p, w, small, i) => limited(r, p, w, "enospc", small, i) },
  "nul-tail": { make: nulTail },
  "nul-hole": { make: nulHole },
  "raw-newline": { make: rawNewline },
  "lost-assistant": { big: true, make: lostAssistant },
};

// ---- main -----------------------------------------------------------------------

async function main(argv) {
  const small = argv.includes("--small");
  const args = argv.filter((a) => a !== "--small");
  const [out, seedArg, ...specs] = args;
  const seed = Number(seedArg);
  if (!out || !Number.isInteger(seed)) {
    process.stderr.write("usage: node gen.mjs OUTDIR SEED [CLASS=COUNT ...] [--small]\n");
    process.exit(2);
  }
  const counts = {};
  for (const name of Object.keys(classes)) counts[name] = 2;
  for (const s of specs) {
    const [name, n] = s.split("=");
    if (name === "all") for (const k of Object.keys(counts)) counts[k] = Number(n);
    else if (name in classes) counts[name] = Number(n);
    else throw new Error(`unknown class ${name}`);
  }
  mkdirSync(out, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "damage-gen-"));
  const summary = [];
  try {
    let classIndex = 0;
    for (const [name, cls] of Object.entries(classes)) {
      classIndex++;
      if (small && cls.big) continue;
      for (let i = 0; i < counts[name]; i++) {
        // Each file has its own stream of randomness, so that one class's
        // count does not change another's files.
        const r = rng(seed * 1000003 + classIndex * 1009 + i);
        const base = `${name}-${String(i).padStart(2, "0")}`;
        const path = join(out, base + ".jsonl");
        rmSync(path, { force: true });
        const t = await cls.make(r, path, work, small, i);
        if (t.skipped) {
          summary.push({ file: base + ".jsonl", class: name, skipped: t.skipped });
          rmSync(path, { force: true });
          continue;
        }
        writeFileSync(join(out, base + ".truth.json"), JSON.stringify({ class: name, variant: t.variant, happened: t.happened, records: t.records }) + "\n");
        const count = (s) => t.records.filter((x) => x.state === s).length;
        summary.push({
          file: base + ".jsonl",
          class: name,
          variant: t.variant,
          intact: count("intact"),
          recoverable: count("recoverable"),
          lost: count("lost"),
          absent: count("absent"),
          ...t.happened,
        });
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(summary.map(({ order, ...rest }) => rest), null, 1) + "\n");
}

await main(process.argv.slice(2));
