// Unit tests for src/server-path.ts (compiled to out/unit by `npm run test:unit`).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { findServer, INSTALL_HINT, defaultIsExecutable } = require("../../out/unit/server-path.js");

const ext = "/ext";
const lookup = (execs, extra) =>
  findServer({ extensionDir: ext, searchPath: "/a:/b", platform: "linux", homeDir: "/home/u", isExecutable: (f) => execs.includes(f), ...extra });

test("the documented order", async (t) => {
  const all = ["/set/sessionls", "/env/sessionls", "/ext/bin/sessionls", "/b/sessionls"];
  const cases = [
    ["setting first", all, { setting: "/set/sessionls", envPath: "/env/sessionls" }, "/set/sessionls", "setting"],
    ["then the environment", all, { setting: "", envPath: "/env/sessionls" }, "/env/sessionls", "environment"],
    ["then the bundled binary", all, {}, "/ext/bin/sessionls", "bundled"],
    ["then PATH", ["/b/sessionls"], {}, "/b/sessionls", "PATH"],
    ["PATH in order", ["/a/sessionls", "/b/sessionls"], {}, "/a/sessionls", "PATH"],
    ["~ in the setting", ["/home/u/go/bin/sessionls"], { setting: "~/go/bin/sessionls" }, "/home/u/go/bin/sessionls", "setting"],
    ["blank setting is unset", ["/b/sessionls"], { setting: "   " }, "/b/sessionls", "PATH"],
  ];
  for (const [name, execs, extra, command, source] of cases) {
    await t.test(name, () => assert.deepEqual(lookup(execs, extra), { ok: true, server: { command, source } }));
  }
});

test("an explicit path that is not there is an error, not a fall-through", () => {
  const r = lookup(["/b/sessionls"], { setting: "/nope/sessionls" });
  assert.equal(r.ok, false);
  assert.match(r.message, /sessionls\.path setting names \/nope\/sessionls/);
  assert.ok(r.message.includes(INSTALL_HINT));
  const e = lookup(["/b/sessionls"], { envPath: "/nope/sessionls" });
  assert.equal(e.ok, false);
  assert.match(e.message, /SESSIONLS_PATH/);
});

test("nothing found", () => {
  const r = lookup([], {});
  assert.equal(r.ok, false);
  assert.ok(r.message.endsWith(INSTALL_HINT));
  assert.match(INSTALL_HINT, /go install github\.com\/sessionls\/sessionls\/cmd\/sessionls@latest/);
});

test("windows looks for sessionls.exe", () => {
  const r = findServer({ extensionDir: "C:\\ext", searchPath: "C:\\go\\bin", platform: "win32", isExecutable: (f) => f.endsWith("sessionls.exe") && f.startsWith("C:\\go") });
  assert.equal(r.ok, true);
  assert.equal(r.server.source, "PATH");
});

test("defaultIsExecutable", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sessionls-unit-"));
  try {
    const exe = path.join(dir, "x");
    const plain = path.join(dir, "y");
    fs.writeFileSync(exe, "#!/bin/sh\n", { mode: 0o755 });
    fs.writeFileSync(plain, "", { mode: 0o644 });
    assert.equal(defaultIsExecutable(exe), true);
    assert.equal(defaultIsExecutable(dir), false);
    assert.equal(defaultIsExecutable(path.join(dir, "missing")), false);
    // Even root needs an x bit on a regular file.
    assert.equal(defaultIsExecutable(plain), false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
