// The context map panel's pure parts (no vscode import), unit-tested in
// test/unit/mapargs.test.js.

/** A reveal message from the page: a 1-based line. */
export function revealLine(msg: unknown): number | undefined {
  if (typeof msg !== "object" || msg === null) {
    return undefined;
  }
  const m = msg as { command?: unknown; line?: unknown };
  if (m.command !== "reveal" || typeof m.line !== "number" || !Number.isSafeInteger(m.line) || m.line < 1) {
    return undefined;
  }
  return m.line;
}

/** The arguments of `sessionls map` for a file and the editor's settings. */
export function mapArgs(file: string, out: string, budget: number | null, tokens: boolean, tokenizer: string | null): string[] {
  const args = ["map"];
  if (budget !== null && budget > 0) {
    args.push("--budget", String(budget));
  }
  if (tokenizer) {
    args.push("--tokenizer", tokenizer);
  } else if (tokens) {
    args.push("--tokens");
  }
  args.push("-o", out, "--", file);
  return args;
}
