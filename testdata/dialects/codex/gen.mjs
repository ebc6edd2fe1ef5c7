// gen.mjs writes the Codex CLI rollouts of this directory: one clean
// session and one per breakage, each line appended as codex's JsonlWriter
// appends it (one compact JSON text and "\n" per RolloutLine), with node's
// own fs.promises.appendFile through testdata/damage/writer.mjs, and the
// damage made by real crashes: a SIGKILL'd writer, an append cut by
// RLIMIT_FSIZE (EFBIG) and resumed, a writer leaving raw newlines, two
// writers appending large records at once.
//
// Usage: node gen.mjs OUTDIR [--big] [CLASS ...]
//   --big  also the classes that need records over 512 KiB (interleave):
//          made at test time, not shipped
//   CLASS  only these classes
//
// The content is fixed (no randomness): the same OUTDIR every run, but
// where the kernel decides (which write lands first).

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runWriter, startWriter } from "../../damage/run-writer.mjs";

const CHUNK = 512 * 1024;

// ---- the records, as codex-rs serializes them ----------------------------

let clock = Date.parse("2026-11-30T09:14:02.118Z");
const ts = () => new Date((clock += 1375)).toISOString();
const line = (type, payload) => ({ timestamp: ts(), type, payload });

const SESSION = "0199d7a4-3c1e-7b52-9f0e-5a1c2b3d4e5f";
const meta = () =>
  line("session_meta", {
    id: SESSION,
    timestamp: "2026-11-30T09:14:02.118Z",
    cwd: "/home/ada/src/tally",
    originator: "codex_cli_rs",
    cli_version: "0.63.0",
    instructions: null,
    source: "cli",
    model_provider: "openai",
    git: { commit_hash: "9f2c4e1b7a0d3c5e8f6a1b2c3d4e5f6a7b8c9d0e", branch: "main", repository_url: "git@github.com:ada/tally.git" },
  });
const turnContext = () =>
  line("turn_context", {
    cwd: "/home/ada/src/tally",
    approval_policy: "on-request",
    sandbox_policy: { mode: "workspace-write", network_access: false, exclude_tmpdir_env_var: false, exclude_slash_tmp: false },
    model: "gpt-5-codex",
    effort: "medium",
    summary: "auto",
  });
const user = (text) => [
  line("response_item", { type: "message", role: "user", content: [{ type: "input_text", text }] }),
  line("event_msg", { type: "user_message", message: text, images: [] }),
];
const envContext = () =>
  line("response_item", {
    type: "message",
    role: "user",
    content: [
      {
        type: "input_text",
        text: "<environment_context>\n  <cwd>/home/ada/src/tally</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>",
      },
    ],
  });
const reasoning = (summary) =>
  line("response_item", {
    type: "reasoning",
    summary: [{ type: "summary_text", text: summary }],
    content: null,
    encrypted_content: "gAAAAABpK3Qx" + Buffer.from(summary).toString("base64").replace(/=+$/, ""),
  });
const shell = (callId, cmd) =>
  line("response_item", {
    type: "function_call",
    name: "shell",
    arguments: JSON.stringify({ command: ["bash", "-lc", cmd], workdir: "/home/ada/src/tally", timeout_ms: 120000 }),
    call_id: callId,
  });
const shellOut = (callId, output, exit = 0) =>
  line("response_item", {
    type: "function_call_output",
    call_id: callId,
    output: JSON.stringify({ output, metadata: { exit_code: exit, duration_seconds: 0.2 } }),
  });
const patch = (callId, input) =>
  line("response_item", { type: "custom_tool_call", status: "completed", call_id: callId, name: "apply_patch", input });
const patchOut = (callId, files) =>
  line("response_item", {
    type: "custom_tool_call_output",
    call_id: callId,
    output: JSON.stringify({ output: `Success. Updated the following files:\n${files.map((f) => "M " + f).join("\n")}\n`, metadata: { exit_code: 0, duration_seconds: 0.0 } }),
  });
const assistant = (text) => [
  line("response_item", { type: "message", role: "assistant", content: [{ type: "output_text", text }] }),
  line("event_msg", { type: "agent_message", message: text }),
];
let total = { input: 0, cached: 0, output: 0, reasoning: 0 };
const tokenCount = (input, cached, output, reasoningTokens) => {
  total = { input: total.input + input, cached: total.cached + cached, output: total.output + output, reasoning: total.reasoning + reasoningTokens };
  const usage = (u) => ({ input_tokens: u.input, cached_input_tokens: u.cached, output_tokens: u.output, reasoning_output_tokens: u.reasoning, total_tokens: u.input + u.output });
  return line("event_msg", {
    type: "token_count",
    info: { total_token_usage: usage(total), last_token_usage: usage({ input, cached, output, reasoning: reasoningTokens }), model_context_window: 272000 },
    rate_limits: { primary: { used_percent: 3.0, window_minutes: 299, resets_in_seconds: 16011 }, secondary: null },
  });
};

const PATCH = `*** Begin Patch
*** Update File: src/parse.rs
@@ fn parse_amount(s: &str) -> Result<Cents, ParseError> {
-    let v: f64 = s.parse()?;
-    Ok(Cents((v * 100.0) as i64))
+    let (whole, frac) = s.split_once('.').unwrap_or((s, "0"));
+    let frac = format!("{frac:0<2}");
+    Ok(Cents(whole.parse::<i64>()? * 100 + frac[..2].parse::<i64>()?))
*** End Patch`;

// session is the clean rollout: two user turns with parallel shell calls, a
// custom tool call (apply_patch), reasoning, token counts, an unknown
// future response item, a compaction with its replacement history, and a
// turn after it.
function session() {
  clock = Date.parse("2026-11-30T09:14:02.118Z");
  total = { input: 0, cached: 0, output: 0, reasoning: 0 };
  return [
    meta(),
    envContext(),
    turnContext(),
    ...user("parse_amount rounds 19.99 to 1998 cents. Find why and fix it; keep the tests passing."),
    line("event_msg", { type: "token_count", info: null, rate_limits: { primary: { used_percent: 2.0, window_minutes: 299, resets_in_seconds: 16100 }, secondary: null } }),
    reasoning("**Locating the parser**\n\nI'll look at parse_amount and its tests before changing anything."),
    shell("call_Qm3cA1", "rg -n \"fn parse_amount\" src"),
    shell("call_Qm3cA2", "sed -n 1,80p tests/parse.rs"),
    shellOut("call_Qm3cA1", "src/parse.rs:12:pub fn parse_amount(s: &str) -> Result<Cents, ParseError> {\n"),
    shellOut("call_Qm3cA2", "use tally::parse::parse_amount;\n\n#[test]\nfn cents() {\n    assert_eq!(parse_amount(\"19.99\").unwrap().0, 1999);\n}\n"),
    tokenCount(9120, 8064, 212, 128),
    reasoning("**Float rounding**\n\n19.99 * 100.0 is 1998.9999999999998 in binary floating point; `as i64` truncates it."),
    patch("call_Vb71x9", PATCH),
    patchOut("call_Vb71x9", ["src/parse.rs"]),
    shell("call_Qm3cA3", "cargo test --quiet"),
    shellOut("call_Qm3cA3", "running 14 tests\n..............\ntest result: ok. 14 passed; 0 failed\n"),
    tokenCount(10344, 9088, 401, 256),
    line("response_item", { type: "image_generation_call", id: "ig_01", status: "completed", revised_prompt: "a receipt", result: "iVBORw0KGgo=" }),
    ...assistant("`parse_amount` multiplied a float by 100 and truncated: 19.99 × 100 is 1998.9999… in binary. It now splits the text at the point and adds integer cents, so 19.99 is 1999. The 14 tests pass."),
    line("event_msg", { type: "task_complete", last_agent_message: "parse_amount now adds integer cents." }),
    line("compacted", {
      message: "",
      replacement_history: [
        { type: "message", role: "user", content: [{ type: "input_text", text: "parse_amount rounds 19.99 to 1998 cents. Find why and fix it; keep the tests passing." }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Summary: parse_amount truncated a float; it now adds integer cents (src/parse.rs). Tests pass." }] },
      ],
    }),
    line("event_msg", { type: "context_compacted" }),
    turnContext(),
    ...user("Now reject amounts with more than two decimals — résumé: \u00e9t\u00e9 ✓ 🧾"),
    reasoning("**Validation**\n\nReturn ParseError::Precision when the fraction has more than two digits."),
    shell("call_Zr88k1", "rg -n \"enum ParseError\" -A6 src/parse.rs"),
    shellOut("call_Zr88k1", "4:pub enum ParseError {\n5:    Number(std::num::ParseIntError),\n6:}\n"),
    tokenCount(4210, 1024, 188, 64),
    ...assistant("Added `ParseError::Precision`; `19.999` is now an error."),
    // An older model's turn: the local_shell tool (answered by a
    // function_call_output) and a web search.
    turnContext(),
    ...user("Is the working tree clean? And what does the Rust book say about f64 rounding?"),
    line("response_item", {
      type: "local_shell_call",
      call_id: "call_Ls0001",
      status: "completed",
      action: { type: "exec", command: ["git", "status", "--short"], timeout_ms: 10000, working_directory: "/home/ada/src/tally", env: null, user: null },
    }),
    line("response_item", { type: "function_call_output", call_id: "call_Ls0001", output: " M src/parse.rs\n" }),
    line("response_item", { type: "web_search_call", status: "completed", action: { type: "search", query: "rust f64 rounding cents" } }),
    ...assistant("One file is modified (src/parse.rs). Floats are binary fractions, so keep money in integer cents."),
  ];
}

// ---- writing, with node's appendFile ----------------------------------------

async function write(work, path, steps, prefix) {
  rmSync(path, { force: true });
  await runWriter({ path, chains: [steps] }, work, prefix);
}

const L = (o) => JSON.stringify(o);
const ids = (lines, f) => lines.map((o, i) => [o, i]).filter(([o]) => f(o)).map(([, i]) => i);

// The classes: name → how to make it. Each returns a note of what happened.
const classes = {
  // A clean session: no error, no warning.
  async clean(work, path) {
    await write(work, path, session().map((m) => ({ m })));
  },
  // Outputs never written: one of two parallel shell calls was
  // interrupted (its output never recorded; the session went on and was
  // compacted later), and codex was killed while the last turn's shell
  // call ran (the file ends after the call; the user's next `codex resume`
  // finds it).
  async "missing-output"(work, path) {
    const s = session();
    const drop = ids(s, (o) => o.payload.type === "function_call_output" && ["call_Qm3cA2", "call_Zr88k1"].includes(o.payload.call_id));
    const last = s.findIndex((o) => o.payload.type === "function_call" && o.payload.call_id === "call_Zr88k1");
    await write(work, path, s.slice(0, last + 1).filter((_, i) => !drop.includes(i)).map((m) => ({ m })));
  },
  // An output whose call is not in the file (the call's line was lost,
  // as when a tool rewrote the file without it).
  async "orphan-output"(work, path) {
    const s = session();
    const drop = ids(s, (o) => o.payload.type === "custom_tool_call" && o.payload.call_id === "call_Vb71x9");
    await write(work, path, s.filter((_, i) => !drop.includes(i)).map((m) => ({ m })));
  },
  // The same call_id used by two calls of the turn.
  async "duplicate-call-id"(work, path) {
    const s = session();
    for (const o of s) if (o.payload.type === "function_call" && o.payload.call_id === "call_Qm3cA3") o.payload.call_id = "call_Qm3cA1";
    for (const o of s) if (o.payload.type === "function_call_output" && o.payload.call_id === "call_Qm3cA3") o.payload.call_id = "call_Qm3cA1";
    await write(work, path, s.map((m) => ({ m })));
  },
  // Lines codex's loader skips: a future rollout item type, a
  // function_call without call_id (an older writer), a lone surrogate in a
  // message (node's JSON.stringify escapes it as \udXXX; serde_json cannot
  // hold it), and an event nested 140 levels deep.
  async "skipped-lines"(work, path) {
    const s = session();
    let deep = "leaf";
    for (let i = 0; i < 140; i++) deep = [deep];
    const at = s.findIndex((o) => o.type === "turn_context");
    s.splice(at + 1, 0, { timestamp: s[at].timestamp, type: "workspace_snapshot", payload: { cwd: "/home/ada/src/tally", open_files: ["src/parse.rs"] } });
    const fc = s.findIndex((o) => o.payload.call_id === "call_Zr88k1" && o.payload.type === "function_call");
    s.splice(fc, 0, { ...s[fc], payload: { type: "function_call", name: "update_plan", arguments: "{\"plan\":[]}" } });
    const am = s.findLastIndex((o) => o.payload.type === "message" && o.payload.role === "assistant");
    s[am].payload.content[0].text += " \ud83e";
    s.push(line("event_msg", { type: "mcp_tool_call_end", call_id: "mcp_1", result: deep }));
    await write(work, path, s.map((m) => ({ m })));
  },
  // A writer that leaves newlines in strings raw (not codex's serde, but
  // tools that rewrite rollouts do): the apply_patch call spans lines.
  async "split-record"(work, path) {
    const s = session();
    const k = s.findIndex((o) => o.payload.type === "custom_tool_call");
    await write(work, path, s.map((m, i) => ({ m, raw: i === k })));
  },
  // The disk limit (RLIMIT_FSIZE, EFBIG) cuts the last append: a cut-off
  // last line.
  async "cut-tail"(work, path) {
    const s = session();
    const bytes = s.map((o) => Buffer.byteLength(L(o)) + 1);
    const limit = bytes.reduce((a, b) => a + b, 0) - Math.floor(bytes.at(-1) / 2);
    await write(work, path, s.map((m) => ({ m })), ["prlimit", `--fsize=${limit}:unlimited`]);
  },
  // The same cut in the middle of the session, then the limit lifted and
  // codex goes on (resumed): the next append continues the cut line.
  async "crash-resumed"(work, path) {
    const s = session();
    const bytes = s.map((o) => Buffer.byteLength(L(o)) + 1);
    const k = s.findIndex((o) => o.payload.type === "function_call_output" && o.payload.call_id === "call_Qm3cA3");
    const limit = bytes.slice(0, k).reduce((a, b) => a + b, 0) + 40;
    rmSync(path, { force: true });
    const w = startWriter({ path, chains: [s.map((m) => ({ m }))], pauseOnError: true }, work, ["prlimit", `--fsize=${limit}:unlimited`]);
    await w.until((e) => e.event === "error");
    const lift = spawnSync("prlimit", ["--pid", String(w.child.pid), "--fsize=unlimited"], { encoding: "utf8" });
    if (lift.status !== 0) throw new Error(`lifting the limit: ${lift.stderr}`);
    w.child.stdin.write("go\n");
    await w.exited;
  },
  // A session whose session_meta was cut (EFBIG on the first append) and
  // then went on: codex cannot find its thread id.
  async "no-meta"(work, path) {
    const s = session();
    const limit = Math.floor(Buffer.byteLength(L(s[0])) / 2);
    rmSync(path, { force: true });
    const w = startWriter({ path, chains: [s.map((m) => ({ m }))], pauseOnError: true }, work, ["prlimit", `--fsize=${limit}:unlimited`]);
    await w.until((e) => e.event === "error");
    spawnSync("prlimit", ["--pid", String(w.child.pid), "--fsize=unlimited"]);
    w.child.stdin.write("go\n");
    await w.exited;
  },
  // A crash (ext4's delayed allocation): the file's size was written, the
  // data of its last appends was not, and reads back as NULs from inside
  // the local_shell_call on; codex resumed afterwards and appended a turn
  // after the zeros.
  async "nul-tail"(work, path) {
    const s = session();
    await write(work, path, s.map((m) => ({ m })));
    const data = readFileSync(path);
    const k = s.findIndex((o) => o.payload.type === "local_shell_call");
    const from = s.slice(0, k).reduce((a, o) => a + Buffer.byteLength(L(o)) + 1, 0) + 60;
    truncateSync(path, from);
    truncateSync(path, data.length);
    const more = [...user("Are you still there?"), ...assistant("Yes. The last commands were lost in a crash; the fix in src/parse.rs is intact.")];
    await runWriter({ path, chains: [more.map((m) => ({ m }))] }, work);
  },
  // A byte that is not UTF-8 (a tool's Latin-1 output pasted raw): codex
  // cannot read the file at all.
  async "not-utf8"(work, path) {
    await write(work, path, session().map((m) => ({ m })));
    const data = readFileSync(path);
    const at = data.indexOf("r\u00e9sum\u00e9");
    data[at + 1] = 0xe9; // the first byte of "é" becomes Latin-1 "é"
    data[at + 2] = 0x20; // and its continuation byte a space
    writeFileSync(path, data);
  },
};

// Classes needing records over node's 524,288-byte write chunk.
const bigClasses = {
  // The session resumed twice at once (`codex resume` in two terminals):
  // both append a turn to the same rollout, each with a record over
  // node's 524,288-byte write chunk (a shell output; a pasted log in a
  // user message, nested deeper), and their write() chunks interleave.
  async interleave(work, path) {
    // Text that never repeats itself, so that exactly one pairing of the
    // pieces makes the records again: a repeated word makes pieces of one
    // record interchangeable, and the engine then (rightly) reports an
    // ambiguity and leaves the lines refused instead of guessing.
    const fill = (word, n) => {
      const parts = [];
      for (let i = 0, len = 0; len < n; i++) {
        const p = `${word} ${i}\n`;
        parts.push(p);
        len += p.length;
      }
      return parts.join("");
    };
    for (let attempt = 0; attempt < 40; attempt++) {
      rmSync(path, { force: true });
      await write(work, path, session().map((m) => ({ m })));
      const a = [
        ...user("Run the benchmarks and show me the raw output."),
        shell("call_Pb1", "cargo bench --quiet 2>&1"),
        shellOut("call_Pb1", fill("bench", CHUNK * 1.5)),
        ...assistant("The benchmarks ran; parse_amount is 12% faster."),
      ];
      const b = [
        ...user("Here is the production log:\n" + fill("log", CHUNK * 1.3)),
        shell("call_Qr1", "rg -c ERROR /tmp/prod.log"),
        shellOut("call_Qr1", "0\n"),
        ...assistant("The log has no errors."),
      ];
      await runWriter({ path, chains: [a.map((m) => ({ m })), b.map((m) => ({ m }))] }, work);
      const text = readFileSync(path, "utf8");
      if (text.split("\n").some((l) => l.length > CHUNK && !isJSON(l))) return;
    }
    throw new Error("no interleave in 40 attempts");
  },
};

function isJSON(l) {
  try {
    JSON.parse(l);
    return true;
  } catch {
    return false;
  }
}

async function main(argv) {
  const out = argv[0];
  if (!out) throw new Error("usage: node gen.mjs OUTDIR [--big]");
  mkdirSync(out, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "codex-gen-"));
  try {
    const all = argv.includes("--big") ? { ...classes, ...bigClasses } : classes;
    const only = argv.slice(1).filter((a) => !a.startsWith("--"));
    for (const [name, make] of Object.entries(all)) {
      if (only.length === 0 || only.includes(name)) await make(work, join(out, `${name}.jsonl`));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main(process.argv.slice(2));
