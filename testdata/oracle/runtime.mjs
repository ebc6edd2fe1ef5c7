// The oracle: the agent runtime's session functions, written in plain node
// as the book chapter sessionls comes from shows them (docs/semantics.md is
// the contract they follow), so
// that sessionls's answers can be compared with node's JSON.parse and
// JSON.stringify. Keep it small and obviously faithful: it is the judge.
//
// Usage (FILE is read as raw bytes and decoded like readFile(path, "utf8")):
//   node runtime.mjs lines FILE       one JSON object per non-empty physical line
//   node runtime.mjs budget FILE B    units and the trimContext result for budget B
//   node runtime.mjs batch LIST       LIST is a JSON file [{path, budgets:[..]}];
//                                     prints a JSON array of {lines, budget:[..]}
// Line numbers in the output are physical (1-based, as editors count them).

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

// ---- src/session.ts -------------------------------------------------------

export function record(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value
    : undefined;
}

export function calls(value) {
  return (
    Array.isArray(value) &&
    value.every((call) => {
      const item = record(call);
      return (
        item !== undefined &&
        typeof item.id === "string" &&
        typeof item.name === "string" &&
        "input" in item
      );
    })
  );
}

export function parseSessionMessage(value) {
  const item = record(value);
  if (item === undefined || typeof item.role !== "string" || typeof item.content !== "string") {
    return undefined;
  }
  if (item.role === "user") return { role: "user", content: item.content };
  if (item.role === "assistant" && calls(item.toolCalls)) {
    return { role: "assistant", content: item.content, toolCalls: item.toolCalls };
  }
  if (item.role === "tool" && typeof item.toolCallId === "string" && typeof item.isError === "boolean") {
    return { role: "tool", content: item.content, toolCallId: item.toolCallId, isError: item.isError };
  }
  return undefined;
}

// loadSession after readFile: the text split on "\n", empty lines skipped,
// numbered as the runtime numbers them (non-empty lines, from 1).
export function loadSessionText(text) {
  return text
    .split("\n")
    .filter(Boolean)
    .map((line, index) => loadSessionLine(line, index + 1));
}

// What loadSession does with one non-empty line, number n: JSON.parse,
// then parseSessionMessage, with the runtime's errors.
export function loadSessionLine(line, n) {
  let value;
  try {
    value = JSON.parse(line);
  } catch {
    throw new Error(`invalid session JSON at line ${n}`);
  }
  const message = parseSessionMessage(value);
  if (message === undefined) throw new Error(`invalid session record at line ${n}`);
  return message;
}

// ---- src/context.ts -------------------------------------------------------

export function estimateContextChars(messages) {
  let total = 0;
  messages.forEach((message, index) => {
    let serialized;
    try {
      serialized = JSON.stringify(message);
    } catch (error) {
      throw new Error(`message ${index} cannot be serialized: ${error.message}`);
    }
    if (serialized === undefined) throw new Error(`message ${index} cannot be serialized`);
    total += serialized.length + 1;
  });
  return total;
}

// The seed's unit loop, verbatim (quadratic, as the runtime is).
export function buildUnits(messages) {
  const units = [];
  for (let index = messages.length - 1; index >= 0;) {
    const message = messages[index];
    if (message.role === "tool") {
      let assistantIndex = -1;
      for (let i = index - 1; i >= 0; i--) {
        const candidate = messages[i];
        if (
          candidate.role === "assistant" &&
          candidate.toolCalls.some((call) => call.id === message.toolCallId)
        ) {
          assistantIndex = i;
          break;
        }
      }
      if (assistantIndex >= 0) {
        units.unshift(messages.slice(assistantIndex, index + 1));
        index = assistantIndex - 1;
        continue;
      }
    }
    units.unshift([message]);
    index--;
  }
  return units;
}

// The seed's packing loop: from the newest unit, stop at the first that does
// not fit.
export function packUnits(units, maxChars) {
  const kept = [];
  for (let u = units.length - 1; u >= 0; u--) {
    const unit = units[u];
    if (estimateContextChars([...unit, ...kept]) > maxChars) {
      if (kept.length === 0) {
        throw new Error("context budget cannot contain the smallest consistent message unit");
      }
      break;
    }
    kept.unshift(...unit);
  }
  if (kept.length === 0) throw new Error("context budget cannot be empty");
  return kept;
}

export function trimContext(messages, maxChars) {
  return packUnits(buildUnits(messages), maxChars);
}

// ---- the oracle's modes ---------------------------------------------------

// physicalLines returns the non-empty lines with their physical numbers.
function physicalLines(text) {
  const out = [];
  text.split("\n").forEach((line, i) => {
    if (line !== "") out.push({ n: i + 1, line });
  });
  return out;
}

// verdicts: what JSON.parse + parseSessionMessage make of each line.
function verdicts(text) {
  return physicalLines(text).map(({ n, line }) => {
    const width = line.length; // UTF-16 units of the decoded line
    let value;
    try {
      value = JSON.parse(line);
    } catch (error) {
      // V8 names a position (UTF-16 units) for most syntax errors.
      const at = /at position (\d+)/.exec(error.message);
      return {
        line: n, verdict: "invalid-json", width, pos: at ? Number(at[1]) : null, message: error.message,
        cost: null, role: null, ids: null, toolCallId: null,
      };
    }
    const m = parseSessionMessage(value);
    if (m === undefined) {
      return { line: n, verdict: "invalid-record", width, cost: null, role: null, ids: null, toolCallId: null };
    }
    // JSON.stringify recurses: a value nested some 4,000 levels deep
    // parses, but measuring it throws (RangeError: Maximum call stack size
    // exceeded), and so would the runtime's trimContext. Say so instead of
    // crashing the oracle.
    let cost = null;
    let costError;
    try {
      cost = estimateContextChars([m]);
    } catch (error) {
      costError = error.message;
    }
    return {
      line: n,
      verdict: "valid",
      width,
      cost,
      costError,
      role: m.role,
      ids: m.role === "assistant" ? m.toolCalls.map((c) => c.id) : null,
      toolCallId: m.role === "tool" ? m.toolCallId : null,
    };
  });
}

// budget: what loadSession and trimContext do with the file.
function budget(text, budgets) {
  const shape = {
    width: text.length, // UTF-16 units of the whole decoded file
    // physical lines, counting a last line without "\n"
    physical: text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0),
  };
  return { ...shape, ...load(text, budgets) };
}

function load(text, budgets) {
  const phys = physicalLines(text);
  let messages;
  try {
    messages = loadSessionText(text);
  } catch (error) {
    const m = /^invalid session (JSON|record) at line (\d+)$/.exec(error.message);
    if (m === null) throw error;
    const runtimeLine = Number(m[2]);
    return {
      loads: false,
      error: error.message,
      kind: m[1] === "JSON" ? "invalid-json" : "invalid-record",
      line: phys[runtimeLine - 1].n,
      runtimeLine,
    };
  }
  // See verdicts(): a message JSON.stringify cannot measure loads, and
  // makes trimContext throw once packing reaches its unit (the cuts below
  // then carry that error); totals and unit chars that include it are null.
  const measure = (msgs) => {
    try {
      return [estimateContextChars(msgs), undefined];
    } catch (error) {
      return [null, error.message];
    }
  };
  const [totalChars, estimateError] = measure(messages);
  const lineOf = new Map(messages.map((msg, i) => [msg, phys[i].n]));
  const units = buildUnits(messages);
  const cuts = budgets.map((b) => {
    let kept;
    try {
      kept = packUnits(units, b);
    } catch (error) {
      return { budget: b, error: error.message };
    }
    let keptUnits = 0;
    for (let n = 0, u = units.length - 1; n < kept.length; u--) {
      n += units[u].length;
      keptUnits++;
    }
    return {
      budget: b,
      firstKeptLine: lineOf.get(kept[0]),
      keptUnits,
      keptMessages: kept.length,
      keptChars: estimateContextChars(kept),
    };
  });
  return {
    loads: true,
    messages: messages.length,
    totalChars,
    estimateError,
    units: units.map((u) => ({
      startLine: lineOf.get(u[0]),
      endLine: lineOf.get(u[u.length - 1]),
      messages: u.length,
      chars: measure(u)[0],
    })),
    cuts,
  };
}

function readText(path) {
  return readFileSync(path).toString("utf8");
}

function main(argv) {
  const [mode, path, arg] = argv;
  if (mode === "lines" && path) {
    const out = verdicts(readText(path)).map((v) => JSON.stringify(v));
    process.stdout.write(out.length ? out.join("\n") + "\n" : "");
  } else if (mode === "budget" && path && arg) {
    process.stdout.write(JSON.stringify(budget(readText(path), [Number(arg)]), null, 1) + "\n");
  } else if (mode === "batch" && path) {
    const list = JSON.parse(readFileSync(path, "utf8"));
    const out = list.map(({ path: p, budgets }) => {
      const text = readText(p);
      return { lines: verdicts(text), budget: budget(text, budgets ?? []) };
    });
    process.stdout.write(JSON.stringify(out));
  } else {
    process.stderr.write("usage: node runtime.mjs lines FILE | budget FILE B | batch LIST\n");
    process.exit(2);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2));
}
