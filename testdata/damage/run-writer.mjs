// run-writer.mjs runs writer.mjs (node's own fs.promises.appendFile) for
// the generators: damage/gen.mjs and dialects/codex/gen.mjs.

import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const writer = join(dirname(fileURLToPath(import.meta.url)), "writer.mjs");

let jobSeq = 0;

// startWriter spawns writer.mjs on job, written as a file in work
// (optionally under a command prefix such as prlimit), and returns the
// child, the events it has printed so far, its exit ({code, signal}) and
// until(pred): the first event pred accepts, or undefined once the writer
// exits without one.
export function startWriter(job, work, prefix = []) {
  const jobPath = join(work, `job-${jobSeq++}.json`);
  writeFileSync(jobPath, JSON.stringify(job));
  const argv = [...prefix, process.execPath, writer, jobPath];
  const child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  const events = [];
  const waiters = [];
  let buf = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const ev = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      events.push(ev);
      for (const w of waiters.splice(0)) w();
    }
  });
  const exited = new Promise((res) => child.on("exit", (code, signal) => res({ code, signal })));
  const until = async (pred) => {
    for (;;) {
      const ev = events.find(pred);
      if (ev) return ev;
      const more = new Promise((res) => waiters.push(res));
      const done = await Promise.race([more.then(() => false), exited.then(() => true)]);
      if (done) return events.find(pred);
    }
  };
  return { child, events, exited, until };
}

// runWriter runs a job with one writer and waits for it to end.
export async function runWriter(job, work, prefix) {
  const w = startWriter(job, work, prefix);
  const exit = await w.exited;
  return { events: w.events, exit };
}
