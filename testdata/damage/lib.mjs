// Shared parts of the damage corpus generator (gen.mjs) and its writer
// (writer.mjs): a seeded random source, the runtime's messages, the
// runtime's writer, and the reconstruction of what the writers really left
// in a file.

import { appendFile } from "node:fs/promises";

// Node's fs.promises.writeFile (which appendFile is) writes a buffer in
// write() calls of at most this many bytes (lib/internal/fs/promises.js).
export const CHUNK = 512 * 1024;

// rng is a small seeded generator (mulberry32): the corpus depends only on
// the seed, except where the operating system decides (concurrency, kill).
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    float: next,
    int: (n) => Math.floor(next() * n),
    range: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (list) => list[Math.floor(next() * list.length)],
    chance: (p) => next() < p,
  };
}

const words = [
  "the", "file", "session", "append", "tool", "result", "error", "line", "build", "test",
  "ok", "value", "return", "func", "main", "package", "import", "const", "node", "write",
];
// Non-ASCII so that node's byte-sized chunks cut UTF-8 sequences.
const wide = ["é", "ß", "中文", "→", "😀", "Ж", "ℕ", "\u2028"];

// text returns about n bytes (UTF-8) of tool-output-like text, with
// newlines, tabs, quotes and backslashes that JSON.stringify escapes.
export function text(r, n) {
  const parts = [];
  let size = 0;
  while (size < n) {
    let w;
    const k = r.int(100);
    if (k < 6) w = "\n";
    else if (k < 8) w = "\t";
    else if (k < 10) w = r.pick(['"', "\\", "/"]);
    else if (k < 16) w = r.pick(wide);
    else w = r.pick(words) + " ";
    parts.push(w);
    size += Buffer.byteLength(w);
  }
  return parts.join("");
}

// The runtime's three kinds of message (docs/semantics.md §3).
export const user = (content) => ({ role: "user", content });
export const assistant = (content, calls) => ({
  role: "assistant",
  content,
  toolCalls: calls.map(([id, name, input]) => ({ id, name, input })),
});
export const tool = (toolCallId, content, isError = false) => ({ role: "tool", content, toolCallId, isError });

// conversation returns the messages of one agent's turns: a user message,
// an assistant calling tools, their results (some of them `big` bytes of
// output); ids carry the writer's tag so that every record is unique.
export function conversation(r, tag, turns, big) {
  const out = [];
  let call = 0;
  for (let t = 0; t < turns; t++) {
    out.push(user(`[${tag}] turn ${t}: ` + text(r, r.range(20, 200))));
    const n = r.range(1, 2);
    const calls = [];
    for (let i = 0; i < n; i++) {
      calls.push([`${tag}-call-${call++}`, r.pick(["read_file", "bash", "grep"]), { path: `src/${tag}/${t}.go`, n: i }]);
    }
    out.push(assistant(`[${tag}] ` + text(r, r.range(10, 120)), calls));
    for (const [id] of calls) {
      const size = big.length > 0 && r.chance(big.p) ? r.range(big.min, big.max) : r.range(30, 1500);
      out.push(tool(id, text(r, size), r.chance(0.1)));
    }
  }
  return out;
}

// The runtime's writer: one line per message, appended.
export const line = (m) => JSON.stringify(m);
export const append = (path, m) => appendFile(path, JSON.stringify(m) + "\n");

// rawNewlines is what a writer that does not escape newlines in strings
// writes: JSON.stringify's text with every \n escape made a raw newline.
export function rawNewlines(m) {
  return JSON.stringify(m).replace(/\\(u[0-9a-fA-F]{4}|.)/g, (esc, c) => (c === "n" ? "\n" : esc));
}

// chunks splits what one appendFile call writes into node's write() calls.
export function chunks(buf) {
  const out = [];
  for (let i = 0; i < buf.length; i += CHUNK) out.push(buf.subarray(i, Math.min(buf.length, i + CHUNK)));
  return out;
}

// layout finds how the appends of several streams landed in data. Each
// stream is a list of appends ({buf, failed}) its writer made one after
// another; each append lands as its write() chunks, in order, whole
// (O_APPEND); chunks of different streams may interleave. An append that
// failed (EFBIG, ENOSPC) may have landed a prefix (a short write) or
// nothing; one cut by the end of the file (a kill) lands a prefix. It
// returns, for each stream and append, where its chunks lie in data (a cut
// one has `partial` set) and the chunks in file order; `rest` is the
// number of bytes at the end that match no chunk (0 when the file is
// explained).
export function layout(data, streams) {
  const next = streams.map(() => ({ a: 0, c: 0 }));
  const split = streams.map((s) => s.map((ap) => chunks(ap.buf)));
  const where = streams.map((s) => s.map(() => []));
  const order = [];
  const advance = (s) => {
    const { a, c } = next[s];
    next[s] = c + 1 >= split[s][a].length ? { a: a + 1, c: 0 } : { a, c: c + 1 };
  };
  // landsAt: the first append from a that did not fail starts at pos (a
  // failed append before it then landed nothing there).
  const landsAt = (chs, aps, a, pos) => {
    while (a < aps.length && aps[a].failed) a++;
    if (a >= aps.length) return false;
    const ch = chs[a][0];
    const end = Math.min(data.length, pos + ch.length);
    return end > pos && data.subarray(pos, end).equals(ch.subarray(0, end - pos));
  };
  let pos = 0;
  while (pos < data.length) {
    let found = false;
    for (let s = 0; s < streams.length && !found; s++) {
      for (;;) {
        const { a, c } = next[s];
        if (a >= split[s].length) break;
        const ch = split[s][a][c];
        let n = 0;
        const max = Math.min(ch.length, data.length - pos);
        while (n < max && data[pos + n] === ch[n]) n++;
        const failed = streams[s][a].failed && (c > 0 || !landsAt(split[s], streams[s], a + 1, pos));
        if (n === ch.length || (n === data.length - pos && n > 0) || (failed && n > 0)) {
          const partial = n < ch.length;
          where[s][a].push({ off: pos, len: n, partial });
          order.push({ stream: s, append: a, chunk: c, off: pos, len: n, partial });
          pos += n;
          found = true;
          if (partial) next[s] = { a: a + 1, c: 0 };
          else advance(s);
          break;
        }
        if (streams[s][a].failed) {
          next[s] = { a: a + 1, c: 0 }; // nothing (more) of it landed
          continue;
        }
        break;
      }
    }
    if (!found) break;
  }
  return { where, order, rest: data.length - pos, chunksOf: split };
}

// states says, for each append of each stream, what the file holds of it:
// "absent" (no byte of it landed: a failed append, one after a kill),
// "intact" (its bytes whole, contiguous, starting a physical line, and the
// line it writes is the record), "recoverable" (every byte is in the file,
// unchanged, but not as a line of its own), or "lost" (some byte is
// missing or changed). lay is layout()'s result for the undamaged file;
// data is the file after any later damage; exact[s][a] is false for an
// append whose bytes are not the record's line (a writer that wrote the
// record wrongly).
export function states(data, lay, exact) {
  return lay.where.map((appends, s) =>
    appends.map((pieces, a) => {
      const want = lay.chunksOf[s][a];
      if (pieces.length === 0) return "absent";
      if (pieces.length < want.length || pieces.some((p) => p.partial)) return "lost";
      for (let i = 0; i < pieces.length; i++) {
        if (!data.subarray(pieces[i].off, pieces[i].off + pieces[i].len).equals(want[i])) return "lost";
      }
      const contiguous = pieces.every((p, i) => i === 0 || pieces[i - 1].off + pieces[i - 1].len === p.off);
      const start = pieces[0].off;
      const atLineStart = start === 0 || data[start - 1] === 0x0a;
      return contiguous && atLineStart && exact[s][a] ? "intact" : "recoverable";
    }),
  );
}
