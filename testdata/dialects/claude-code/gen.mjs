// gen.mjs writes the Claude Code corpus: transcripts shaped as Claude Code
// writes ~/.claude/projects/<project>/<session>.jsonl (records chained by
// parentUuid, a streamed response as several assistant records sharing
// message.id, parallel tool calls, a subagent's sidechain, thinking
// blocks, a compaction boundary and its summary, an unknown future record
// type), one clean and one per breakage. Every record is appended with
// node's own fs.promises.appendFile(path, JSON.stringify(r) + "\n"), as
// Claude Code appends; the damage is made the way it happens: a writer cut
// by the file size limit (prlimit --fsize: EFBIG), a crash tail of zeros
// followed by the restarted writer's appends, two writers appending
// records over 512 KiB at once, a writer that leaves a line break raw.
//
// Usage: node gen.mjs OUTDIR [interleaved]
// (every file but interleaved.jsonl, 1.2 MB, which only "interleaved"
// makes: the tests make it afresh)
// (node gen.mjs --write FILE JOBS appends the records of the JSON file
// JOBS to FILE: the writer the file size limit cuts.)

import { spawnSync } from "node:child_process";
import { appendFile } from "node:fs/promises";
import { mkdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const line = (r) => JSON.stringify(r) + "\n";

if (process.argv[2] === "--write") {
  for (const r of JSON.parse(readFileSync(process.argv[4], "utf8"))) {
    await appendFile(process.argv[3], line(r));
  }
  process.exit(0);
}

const out = process.argv[2];
if (!out) {
  console.error("usage: node gen.mjs OUTDIR");
  process.exit(2);
}
mkdirSync(out, { recursive: true });

// A transcript under construction: each record names the one before it.
class Transcript {
  constructor(seed) {
    this.seed = seed;
    this.n = 0;
    this.recs = [];
    this.last = null;
    this.time = Date.parse("2026-03-02T09:14:05.000Z");
    this.session = this.id("5e55");
  }
  id(tag) {
    this.n++;
    const h = (this.seed * 7919 + this.n * 104729).toString(16).padStart(12, "0").slice(-12);
    return `${tag.padEnd(8, "0")}-${(1000 + this.n).toString(16).padStart(4, "0")}-4${this.seed.toString(16).padStart(3, "0")}-8a0b-${h}`;
  }
  base(type, extra = {}) {
    this.time += 1700;
    return {
      parentUuid: this.last, isSidechain: false, userType: "external", cwd: "/home/dev/shop",
      sessionId: this.session, version: "2.1.121", gitBranch: "main", type, ...extra,
    };
  }
  push(r, link = true) {
    r.uuid ??= this.id(r.type === "assistant" ? "a" : "b");
    r.timestamp = new Date(this.time).toISOString();
    this.recs.push(r);
    if (link) this.last = r.uuid;
    return r;
  }
  user(content, extra = {}) {
    return this.push({ ...this.base("user", extra), message: { role: "user", content } });
  }
  result(id, content, isError = false, extra = {}) {
    const block = { tool_use_id: id, type: "tool_result", content };
    if (isError) block.is_error = true;
    return this.user([block], { toolUseResult: { stdout: typeof content === "string" ? content : "", stderr: "", interrupted: false }, ...extra });
  }
  // response writes one streamed response: a record per content block,
  // sharing message.id and the usage.
  response(blocks, usage) {
    const msgId = "msg_01" + this.id("m").replace(/-/g, "").slice(0, 22);
    const req = "req_011C" + this.id("r").replace(/-/g, "").slice(0, 20);
    const recs = [];
    for (const b of blocks) {
      recs.push(this.push({
        ...this.base("assistant"),
        message: {
          id: msgId, type: "message", role: "assistant", model: "claude-sonnet-4-5-20250929",
          content: [b], stop_reason: b.type === "tool_use" ? "tool_use" : null, stop_sequence: null,
          usage: { input_tokens: usage[0], cache_creation_input_tokens: usage[1], cache_read_input_tokens: usage[2], output_tokens: usage[3], service_tier: "standard" },
        },
        requestId: req,
      }));
    }
    return recs;
  }
  toolUse(name, input) {
    return { type: "tool_use", id: "toolu_01" + this.id("t").replace(/-/g, "").slice(0, 22), name, input };
  }
}

const text = (t) => ({ type: "text", text: t });
const thinking = (t) => ({ type: "thinking", thinking: t, signature: "EqQBCkYIBxgCKkB" + "x".repeat(40) });

// conversation writes the ordinary part every file shares: a prompt, a
// streamed response with thinking and a call, its result, two parallel
// calls and their results, a subagent (sidechain) and a last answer.
function conversation(t) {
  t.push({ type: "file-history-snapshot", messageId: t.id("f"), snapshot: { messageId: "", trackedFileBackups: {}, timestamp: new Date(t.time).toISOString() }, isSnapshotUpdate: false }, false);
  t.user("Why does `make test` fail on CI but not on my laptop?");
  const read = t.toolUse("Read", { file_path: "/home/dev/shop/.github/workflows/ci.yml" });
  t.response([thinking("The CI config probably pins another Go version."), text("Let me look at the CI workflow first."), read], [3, 5120, 11200, 96]);
  t.result(read.id, "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/setup-go@v5\n        with: { go-version: '1.21' }\n");
  const grep = t.toolUse("Grep", { pattern: "go 1\\.", path: "go.mod" });
  const bash = t.toolUse("Bash", { command: "go version", description: "Show the local Go version" });
  t.response([text("CI uses Go 1.21. Checking go.mod and the local toolchain in parallel."), grep, bash], [4, 812, 16320, 140]);
  t.result(grep.id, "go.mod:3:go 1.23");
  t.result(bash.id, "go version go1.23.4 linux/amd64 — “ok” ✓ 😀");
  const task = t.toolUse("Task", { description: "Find 1.22+ APIs", prompt: "List uses of APIs newer than Go 1.21 in the repo.", subagent_type: "Explore" });
  const [taskRec] = t.response([task], [6, 400, 17100, 88]);
  // The subagent's own conversation: a sidechain of the same file.
  const main = t.last;
  t.last = null;
  t.push({ ...t.base("user"), isSidechain: true, message: { role: "user", content: "List uses of APIs newer than Go 1.21 in the repo." } });
  const sg = t.toolUse("Grep", { pattern: "slices\\.|maps\\.|min\\(|max\\(" });
  for (const r of t.response([sg], [9, 3000, 0, 50])) r.isSidechain = true;
  t.result(sg.id, "cart.go:12: slices.Sort(items)\ntax.go:40: x := min(a, b)", false, { isSidechain: true });
  for (const r of t.response([text("Two uses: slices.Sort (1.21 ok) and the min builtin (1.21 ok).")], [7, 120, 3000, 30])) r.isSidechain = true;
  t.last = main;
  t.result(task.id, [{ type: "text", text: "Two uses: slices.Sort and min, both in Go 1.21." }]);
  return taskRec;
}

function finishing(t) {
  t.response([text("go.mod says `go 1.23`, so CI's Go 1.21 refuses the module. Bump `go-version` to 1.23 in ci.yml.")], [5, 300, 17600, 61]);
}

async function write(name, recs, raw = {}) {
  const p = join(out, name);
  rmSync(p, { force: true });
  for (let i = 0; i < recs.length; i++) {
    await appendFile(p, raw[i] ?? line(recs[i]));
  }
  return p;
}

const made = [];

// make writes name: a transcript of the conversation every file shares,
// then what breakage adds; breakage may return lines to write as they are
// in place of records (by index, as write takes them).
async function make(seed, name, breakage) {
  const t = new Transcript(seed);
  conversation(t);
  const raw = breakage(t);
  made.push(await write(name, t.recs, raw));
}

// clean: everything Claude Code writes, no breakage.
{
  const t = new Transcript(1);
  t.push({ type: "summary", summary: "CI fails: Go version mismatch", leafUuid: "" }, false);
  conversation(t);
  finishing(t);
  // A record type this version does not know, on the chain.
  t.push({ ...t.base("x-workspace-checkpoint"), checkpoint: { files: 3, label: "before compaction" } });
  const before = t.last;
  // Compaction: the boundary starts the conversation Claude Code resumes.
  t.last = null;
  t.push({ ...t.base("system"), subtype: "compact_boundary", content: "Conversation compacted", isMeta: false, level: "info", logicalParentUuid: before, compactMetadata: { trigger: "auto", preTokens: 155230 } });
  t.user("This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nCI used Go 1.21 while go.mod requires 1.23; the fix is to bump setup-go.", { isCompactSummary: true, isVisibleInTranscriptOnly: true });
  t.user("Now bump it and add a test for the tax rounding.");
  const edit = t.toolUse("Edit", { file_path: "/home/dev/shop/.github/workflows/ci.yml", old_string: "go-version: '1.21'", new_string: "go-version: '1.23'" });
  const write2 = t.toolUse("Write", { file_path: "/home/dev/shop/tax_test.go", content: "package shop\n\nfunc TestRound(t *testing.T) {}\n" });
  t.response([edit, write2], [3, 9000, 0, 210]);
  t.result(edit.id, "The file has been updated.");
  t.result(write2.id, "File created successfully at: /home/dev/shop/tax_test.go");
  t.push({ ...t.base("system"), subtype: "stop_hook_summary", hookCount: 1, hookInfos: [{ command: "gofmt -l ." }], hookErrors: [], preventedContinuation: false, level: "suggestion" });
  t.response([text("Done: CI now uses Go 1.23 and tax_test.go covers the rounding.")], [2, 400, 9100, 40]);
  t.recs[0].leafUuid = t.last;
  made.push(await write("clean.jsonl", t.recs));
}

// missing-result-tail: the last response calls a tool and nothing answers
// (the session was killed while the tool ran).
await make(2, "missing-result-tail.jsonl", (t) => {
  finishing(t);
  t.user("Run the tests again.");
  t.response([t.toolUse("Bash", { command: "go test ./...", description: "Run the tests" })], [3, 200, 17900, 70]);
});

// missing-result-mid: a call whose result was never written, then the
// user's next prompt (what a crash between the call and its result, then
// --resume and a new prompt, leaves).
await make(3, "missing-result-mid.jsonl", (t) => {
  t.response([t.toolUse("Bash", { command: "make test", description: "Run the tests" })], [3, 200, 17900, 70]);
  t.user("Never mind, just tell me the cause.");
  finishing(t);
});

// orphan-result: a tool_result whose tool_use is in no record (its
// response was lost), alone in its record, with the answer after it.
await make(4, "orphan-result.jsonl", (t) => {
  finishing(t);
  t.result("toolu_01LostLostLostLostLostLost", "ok");
  finishing(t);
});

// orphan-block: a user record holding its call's result and an orphan.
await make(5, "orphan-block.jsonl", (t) => {
  const call = t.toolUse("Bash", { command: "git status --short" });
  t.response([call], [3, 100, 18000, 40]);
  t.user([
    { tool_use_id: call.id, type: "tool_result", content: " M ci.yml" },
    { tool_use_id: "toolu_01GoneGoneGoneGoneGoneGone", type: "tool_result", content: "stale", is_error: true },
  ]);
  finishing(t);
});

// broken-chain: a record whose parent was never written.
await make(6, "broken-chain.jsonl", (t) => {
  t.last = "b0000000-0fff-4006-8a0b-00000000dead";
  t.user("And the Dockerfile?");
  finishing(t);
});

// duplicate-tool-use-id: two calls with the same id.
await make(7, "duplicate-tool-use-id.jsonl", (t) => {
  const a = t.toolUse("Read", { file_path: "go.mod" });
  t.response([a], [3, 100, 18000, 40]);
  t.result(a.id, "module shop\n\ngo 1.23\n");
  t.response([{ ...a, input: { file_path: "go.sum" } }], [3, 100, 18100, 40]);
  t.result(a.id, "golang.org/x/text v0.14.0 h1:...");
  finishing(t);
});

// duplicate-uuid: a record written twice with the same uuid, changed.
await make(8, "duplicate-uuid.jsonl", (t) => {
  finishing(t);
  const last = t.recs[t.recs.length - 1];
  t.recs.push({ ...last, message: { ...last.message, content: [text("(edited) Bump go-version to 1.23.")] } });
});

// malformed-record: a user record whose content is neither string nor blocks.
await make(9, "malformed-record.jsonl", (t) => {
  t.push({ ...t.base("user"), message: { role: "user", content: 42 } });
  finishing(t);
});

// split-record: a writer that left a line break raw inside a string.
await make(10, "split-record.jsonl", (t) => {
  t.user("Two lines:\nfirst and second.");
  finishing(t);
  const k = t.recs.length - 2;
  return { [k]: line(t.recs[k]).replace("\\n", "\n") };
});

// truncated-tail: the writer cut by the file size limit in its last
// append (EFBIG), as a full disk or a kill cuts it.
{
  const t = new Transcript(11);
  conversation(t);
  finishing(t);
  t.user("One more thing: " + "please check every workflow file. ".repeat(40));
  const p = join(out, "truncated-tail.jsonl");
  rmSync(p, { force: true });
  const jobs = join(out, "truncated-tail.jobs.json");
  writeFileSync(jobs, JSON.stringify(t.recs));
  const full = t.recs.reduce((n, r) => n + Buffer.byteLength(line(r)), 0);
  const limit = full - 700;
  // The writer dies of EFBIG (its error is expected, not shown).
  const r = spawnSync("prlimit", [`--fsize=${limit}`, process.execPath, process.argv[1], "--write", p, jobs], { stdio: "ignore" });
  rmSync(jobs);
  if (statSync(p).size !== limit) {
    console.error(`truncated-tail: the writer was not cut at ${limit} bytes (status ${r.status}, signal ${r.signal}; size ${statSync(p).size})`);
    process.exit(1);
  }
  made.push(p);
}

// zero-filled: a crash tail the file system filled with zeros (the size
// was written, the data was not), then the restarted session's appends.
{
  const t = new Transcript(12);
  conversation(t);
  const p = await write("zero-filled.jsonl", t.recs);
  // The crash: a record whose data never reached the disk.
  const lost = line({ ...t.base("assistant"), uuid: t.id("a"), message: { role: "assistant", content: [text("lost")] } });
  const size = statSync(p).size;
  truncateSync(p, size + Buffer.byteLength(lost) - 1); // zeros where it should be, without its '\n'
  const u = t.user("The session crashed. Where were we?");
  u.parentUuid = t.recs[t.recs.length - 2].uuid;
  finishing(t);
  for (const r of t.recs.slice(-2)) await appendFile(p, line(r));
  made.push(p);
}

if (process.argv[3] === "interleaved") {
// interleaved: two writers appending records over 512 KiB at once (a
// subagent's result and the main response written concurrently): node
// writes each as 512 KiB writes, and they interleave.
{
  let ok = false;
  for (let attempt = 0; attempt < 60 && !ok; attempt++) {
    const t = new Transcript(13);
    conversation(t);
    const call = t.toolUse("Bash", { command: "go test -v ./... 2>&1" });
    t.response([call], [3, 100, 18000, 40]);
    const p = await write("interleaved.jsonl", t.recs);
    // Text that never repeats itself, so that exactly one pairing of the
    // pieces makes two records (repeated text would allow several).
    const big = Array.from({ length: 9000 }, (_, i) => `=== RUN   TestRound/case_${i}\n--- PASS: TestRound/case_${i} (0.00s)\n`).join("");
    const res = t.result(call.id, big);
    const ans = t.user("Also: " + Array.from({ length: 30000 }, (_, i) => `summarize failure ${i}, `).join(""));
    await Promise.all([appendFile(p, line(res)), appendFile(p, line(ans))]);
    const lines = readFileSync(p, "utf8").split("\n").filter(Boolean);
    ok = lines.some((l) => { try { JSON.parse(l); return false; } catch { return true; } });
    if (ok) made.push(p);
  }
  if (!ok) console.error("interleaved: the two appends never interleaved in 60 attempts");
}
}

console.log(JSON.stringify({ made: made.map((p) => p.split("/").pop()) }));
