// The runtime's loadSession + estimateContextChars in node, able to handle
// files of any size: the runtime's own readFile(path, "utf8") throws past
// V8's string limit (0x1fffffe8 UTF-16 units, about 512 MiB of ASCII), so
// this streams the file and splits on "\n" itself. Each line is decoded as
// readFile would decode it (the bytes between two "\n" decode alone, since
// "\n" is never part of a UTF-8 sequence), then JSON.parse,
// parseSessionMessage and JSON.stringify(...).length + 1, the oracle's own
// functions.
//
//   node bench/reference.mjs FILE
// prints {"messages":N,"totalChars":C,"bytes":B,"seconds":S}; on an invalid
// line it prints loadSession's error and exits 1.
import { createReadStream } from "node:fs";
import { loadSessionLine, estimateContextChars } from "../testdata/oracle/runtime.mjs";

const path = process.argv[2];
if (!path) {
  process.stderr.write("usage: node bench/reference.mjs FILE\n");
  process.exit(2);
}

const start = process.hrtime.bigint();
let messages = 0; // also the runtime's line number (non-empty lines)
let totalChars = 0;
let bytes = 0;

function take(buf, s, e) {
  if (e === s) return; // an empty line: skipped, as filter(Boolean) does
  const message = loadSessionLine(buf.toString("utf8", s, e), messages + 1);
  messages++;
  totalChars += estimateContextChars([message]);
}

let carry = null; // the unfinished last line of the previous chunks
try {
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    bytes += chunk.length;
    let s = 0;
    let e = chunk.indexOf(10);
    if (e >= 0 && carry !== null) {
      const line = Buffer.concat([carry, chunk.subarray(0, e)]);
      take(line, 0, line.length);
      carry = null;
      s = e + 1;
      e = chunk.indexOf(10, s);
    }
    if (carry === null) {
      for (; e >= 0; s = e + 1, e = chunk.indexOf(10, s)) take(chunk, s, e);
      if (s < chunk.length) carry = Buffer.from(chunk.subarray(s));
    } else {
      carry = Buffer.concat([carry, chunk]);
    }
  }
  if (carry !== null) take(carry, 0, carry.length);
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
process.stdout.write(JSON.stringify({ messages, totalChars, bytes, seconds }) + "\n");
