#!/usr/bin/env node
// Draws icon.png (128×128): a session file as lines of text, with a dashed
// budget cutoff that greys out the older lines above it. No dependencies:
// the PNG is written by hand (zlib + CRC-32).
//   node scripts/make-icon.js [out.png]
"use strict";
const fs = require("fs");
const path = require("path");
const zlib = require("zlib");

const W = 128;
const H = 128;
const px = new Uint8Array(W * H * 4); // RGBA, transparent

function blend(x, y, [r, g, b], a = 1) {
  if (x < 0 || y < 0 || x >= W || y >= H) return;
  const i = (y * W + x) * 4;
  const da = px[i + 3] / 255;
  const oa = a + da * (1 - a);
  if (oa === 0) return;
  px[i] = Math.round((r * a + px[i] * da * (1 - a)) / oa);
  px[i + 1] = Math.round((g * a + px[i + 1] * da * (1 - a)) / oa);
  px[i + 2] = Math.round((b * a + px[i + 2] * da * (1 - a)) / oa);
  px[i + 3] = Math.round(oa * 255);
}

// Coverage of a rounded rectangle at a pixel, 4×4 supersampled.
function roundRect(x0, y0, x1, y1, rad, color, alpha = 1) {
  for (let y = Math.floor(y0); y < Math.ceil(y1); y++) {
    for (let x = Math.floor(x0); x < Math.ceil(x1); x++) {
      let hits = 0;
      for (let sy = 0; sy < 4; sy++) {
        for (let sx = 0; sx < 4; sx++) {
          const fx = x + (sx + 0.5) / 4;
          const fy = y + (sy + 0.5) / 4;
          if (fx < x0 || fx > x1 || fy < y0 || fy > y1) continue;
          const cx = Math.min(Math.max(fx, x0 + rad), x1 - rad);
          const cy = Math.min(Math.max(fy, y0 + rad), y1 - rad);
          if ((fx - cx) ** 2 + (fy - cy) ** 2 <= rad * rad) hits++;
        }
      }
      if (hits) blend(x, y, color, (alpha * hits) / 16);
    }
  }
}

const bg = [30, 41, 59];
const text = [226, 232, 240];
const faded = [100, 116, 139];
const accent = [249, 115, 22];

roundRect(4, 4, 124, 124, 22, bg);
// Lines of a .jsonl file: [indent, length]; the first three fall above the cut.
const lines = [
  [0, 70],
  [10, 52],
  [10, 78],
  [0, 62],
  [10, 84],
  [10, 44],
  [0, 74],
];
const cutAfter = 3;
lines.forEach(([indent, len], i) => {
  const y = 20 + i * 13 + (i >= cutAfter ? 8 : 0);
  const color = i < cutAfter ? faded : text;
  // Brace-ish dot, then the line body.
  roundRect(18 + indent, y, 24 + indent, y + 6, 3, i < cutAfter ? faded : accent);
  roundRect(28 + indent, y, 28 + indent + len - indent, y + 6, 3, color, i < cutAfter ? 0.7 : 1);
});
// Dashed cutoff line.
const cutY = 20 + cutAfter * 13 - 1;
for (let x = 12; x < 116; x += 10) {
  roundRect(x, cutY, x + 6, cutY + 3, 1.5, accent);
}

// PNG encoding.
const crcTable = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(W, 0);
ihdr.writeUInt32BE(H, 4);
ihdr[8] = 8; // bit depth
ihdr[9] = 6; // RGBA
const raw = Buffer.alloc(H * (W * 4 + 1));
for (let y = 0; y < H; y++) {
  raw[y * (W * 4 + 1)] = 0; // filter: none
  Buffer.from(px.buffer, y * W * 4, W * 4).copy(raw, y * (W * 4 + 1) + 1);
}
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk("IHDR", ihdr),
  chunk("IDAT", zlib.deflateSync(raw, { level: 9 })),
  chunk("IEND", Buffer.alloc(0)),
]);
const out = process.argv[2] || path.join(__dirname, "..", "icon.png");
fs.writeFileSync(out, png);
console.log(`wrote ${out} (${png.length} bytes)`);
