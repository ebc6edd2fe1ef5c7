// Text shown by the extension itself (the lenses come from the server).
// Free of the vscode module so that it can be unit-tested with plain node.

/** The result of the server's `sessionls/status` request. */
export interface SessionStatus {
  budget: number | null;
  totalChars: number;
  /** null without a cutoff (no budget, the file does not load, or the budget is too small). */
  keptChars: number | null;
  firstKeptLine: number | null;
  messages: number;
  loads: boolean;
  error?: string | null;
  /** The least budget that works (the newest unit's cost); null when the file does not load or holds no messages. */
  minBudget?: number | null;
  /** Where the budget comes from: "editor setting sessionls.budget" or "/repo/sessionls.toml:3:1"; null without one. */
  budgetSource?: string | null;
  /** With sessionls.tokens, for a file that loads: the tokenizer and the file's and the kept units' tokens (budget --tokens's totalTokens and keptTokens). */
  tokenizer?: string;
  totalTokens?: number;
  keptTokens?: number;
  /** Why the tokens are not counted (a file of more than 32 MiB). */
  tokensError?: string;
  /** The session format the server reads the file in ("seed", "claude-code", "codex"), and why. */
  dialect?: string;
  dialectWhy?: string;
}

/** " · ≈ 1,980 tokens", or "" when n is not a count. */
function tokensPart(n: number | null | undefined): string {
  return typeof n === "number" ? ` · ≈ ${plural(n, "token", "tokens")}` : "";
}

/** The dialect, for a file the server reads in another format than the runtime's own (seed): "" for seed. */
function otherDialect(s: SessionStatus): string {
  return s.dialect && s.dialect !== "seed" ? s.dialect : "";
}

const numberFormat = new Intl.NumberFormat("en-US");

export function formatCount(n: number): string {
  return numberFormat.format(n);
}

export function plural(n: number, one: string, many: string): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/**
 * The status bar text, worded so that no number can be taken for another:
 * `✂ 12,345 chars · no budget`, `✂ budget 8,000 keeps 7,912 chars`,
 * `✂ budget 42 too small (needs ≥ 719)` (the newest unit does not fit),
 * `✂ budget 100 · no messages`, `✂ budget 8,000 · file does not load`;
 * with sessionls.tokens, the tokens follow the chars:
 * `✂ 12,345 chars · ≈ 3,100 tokens · no budget`,
 * `✂ budget 8,000 keeps 7,912 chars · ≈ 1,980 tokens`.
 */
export function statusText(s: SessionStatus): string {
  const d = otherDialect(s);
  return d ? `${budgetText(s)} · ${d}` : budgetText(s);
}

function budgetText(s: SessionStatus): string {
  if (s.budget === null || s.budget === undefined) {
    return `✂ ${formatCount(s.totalChars)} chars${tokensPart(s.totalTokens)} · no budget`;
  }
  const budget = `budget ${formatCount(s.budget)}`;
  if (!s.loads) {
    return `✂ ${budget} · file does not load`;
  }
  if (s.error || s.keptChars === null || s.keptChars === undefined) {
    if (s.messages === 0) {
      return `✂ ${budget} · no messages`;
    }
    const least = typeof s.minBudget === "number" ? ` (needs ≥ ${formatCount(s.minBudget)})` : "";
    return `✂ ${budget} too small${least}`;
  }
  return `✂ ${budget} keeps ${plural(s.keptChars, "char", "chars")}${tokensPart(s.keptTokens)}`;
}

/** The status bar tooltip: the details the short text leaves out. */
export function statusTooltip(s: SessionStatus): string {
  const lines: string[] = [];
  const tokens = typeof s.totalTokens === "number" ? `, ≈ ${plural(s.totalTokens, "token", "tokens")} (${s.tokenizer})` : "";
  lines.push(`${plural(s.messages, "message", "messages")}, ${plural(s.totalChars, "char", "chars")}${tokens} in all`);
  if (s.tokensError) {
    lines.push(`Tokens: ${s.tokensError}`);
  }
  if (s.budget !== null && s.budget !== undefined) {
    if (s.keptChars !== null && s.keptChars !== undefined && !s.error) {
      const kept = typeof s.keptTokens === "number" ? ` (≈ ${plural(s.keptTokens, "token", "tokens")})` : "";
      lines.push(
        `Budget ${formatCount(s.budget)} keeps ${plural(s.keptChars, "char", "chars")}${kept} from line ${s.firstKeptLine}`,
      );
    } else {
      lines.push(`Budget ${formatCount(s.budget)}: ${s.error ?? "no cutoff"}`);
      if (s.loads && typeof s.minBudget === "number") {
        lines.push(`The least budget that works is ${formatCount(s.minBudget)} (the newest unit's cost).`);
      }
    }
  } else if (s.error) {
    lines.push(s.error);
  }
  if (s.budget !== null && s.budget !== undefined && s.budgetSource) {
    lines.push(`The budget comes from ${s.budgetSource}.`);
  }
  if (!s.loads) {
    lines.push("The agent runtime refuses to load this file (see Problems).");
  }
  if (otherDialect(s)) {
    lines.push(`Read as ${s.dialect}: ${s.dialectWhy ?? ""}.`);
  }
  lines.push("Click to set the context budget.");
  return lines.join("\n");
}

/**
 * validateBudget checks the input box text. It returns an error message, or
 * undefined when the text is acceptable. Empty text is accepted: it removes
 * the budget.
 */
export function validateBudget(text: string): string | undefined {
  const t = text.trim().replace(/[,_]/g, "");
  if (t === "") {
    return undefined;
  }
  if (!/^[0-9]+$/.test(t)) {
    return "Enter a positive whole number of characters, e.g. 8000 (or leave empty to remove the budget).";
  }
  const n = Number(t);
  if (n <= 0) {
    return "The budget must be at least 1 character.";
  }
  if (!Number.isSafeInteger(n)) {
    return "That number is too large.";
  }
  return undefined;
}

/** parseBudget turns validated input into a number, or null for "no budget". */
export function parseBudget(text: string): number | null {
  const t = text.trim().replace(/[,_]/g, "");
  return t === "" ? null : Number(t);
}

/**
 * setTomlBudget returns a sessionls.toml's text with its top-level
 * `budget` set to budget (or removed, for null), everything else kept: the
 * line is replaced where it is, or added before the first table.
 */
export function setTomlBudget(text: string, budget: number | null): string {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const lines = text.split(/\r?\n/);
  let firstTable = lines.findIndex((l) => /^\s*\[/.test(l));
  if (firstTable < 0) {
    firstTable = lines.length;
  }
  const at = lines.slice(0, firstTable).findIndex((l) => /^\s*budget\s*=/.test(l));
  if (budget === null) {
    if (at >= 0) {
      lines.splice(at, 1);
    }
    return lines.join(eol);
  }
  const line = `budget = ${budget}`;
  if (at >= 0) {
    lines[at] = line;
    return lines.join(eol);
  }
  // Before the first table (after a final empty line when there is none).
  let insertAt = firstTable;
  if (insertAt === lines.length && lines.length > 0 && lines[lines.length - 1] === "") {
    insertAt = lines.length - 1;
  }
  lines.splice(insertAt, 0, line);
  return lines.join(eol);
}
