// The runtime's writer, run as a child of gen.mjs: appends messages to a
// session file exactly as the runtime does, fs.promises.appendFile(path,
// JSON.stringify(m) + "\n"), with no lock and no fsync.
//
// Usage: node writer.mjs JOB    (JOB is a JSON file:)
//   {path, chains: [[step, ...], ...], sync, pauseOnError, delay: [lo, hi]}
// The chains run at once (concurrent promises in one process); a chain's
// steps run one after another:
//   {m}            append m, await it (a failure is reported, then the
//                  chain goes on, as the runtime goes on with its next turn)
//   {m, raw: true} append m as a writer that leaves newlines in strings raw
//   {together: [m, ...], then: "await" | "kill"}
//                  append all without awaiting one before the next (the
//                  runtime firing appends and forgetting them); "kill":
//                  SIGKILL this process as soon as all but the first landed
// sync: wait for a line on stdin ("go" or "go AT", AT a time in ms since
// the epoch to start at) before writing, to start several writers at once. pauseOnError: after the first failed append, report it and wait
// for a line on stdin (the parent lifts the limit meanwhile).
// Prints one JSON line per event on stdout: ready, error, done.

import { readFileSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { rawNewlines } from "./lib.mjs";

const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const waitLine = () => lines.next();

const sleep = (ms) => new Promise((res) => setTimeout(res, ms));
const [lo, hi] = job.delay ?? [0, 0];
let paused = false;

async function chain(steps, c) {
  for (let i = 0; i < steps.length; i++) {
    const st = steps[i];
    if (st.together) {
      const ps = st.together.map((m) => appendFile(job.path, JSON.stringify(m) + "\n"));
      if (st.then === "kill") {
        await Promise.all(ps.slice(1));
        process.kill(process.pid, "SIGKILL");
      }
      await Promise.all(ps);
      continue;
    }
    const text = st.raw ? rawNewlines(st.m) : JSON.stringify(st.m);
    try {
      await appendFile(job.path, text + "\n");
    } catch (error) {
      say({ event: "error", chain: c, step: i, code: error.code });
      if (job.pauseOnError && !paused) {
        paused = true;
        await waitLine();
      }
    }
    if (hi > 0) await sleep(lo + ((i * 7919 + c * 104729) % (hi - lo + 1)));
  }
}

say({ event: "ready" });
if (job.sync) {
  const go = await waitLine();
  // "go AT": spin until the wall clock reaches AT (ms), so that writers
  // in several processes start within a fraction of a millisecond.
  const at = Number(String(go.value ?? "").split(" ")[1]);
  if (at > 0) while (Date.now() < at);
}
await Promise.all(job.chains.map((steps, c) => chain(steps, c)));
say({ event: "done" });
process.exit(0);
