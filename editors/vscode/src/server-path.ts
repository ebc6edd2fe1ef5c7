// Locating the sessionls binary. Kept free of the vscode module so that it
// can be unit-tested with plain node.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

export const INSTALL_HINT =
  "Set sessionls.path or install with: go install github.com/sessionls/sessionls/cmd/sessionls@latest";

/** Where a server binary was found, for the log. */
export type ServerSource = "setting" | "environment" | "bundled" | "PATH";

export interface FoundServer {
  command: string;
  source: ServerSource;
}

export interface ServerLookup {
  /** The sessionls.path setting ("" or undefined when unset). */
  setting?: string;
  /** process.env.SESSIONLS_PATH. */
  envPath?: string;
  /** The extension's own folder; a binary may be bundled in its bin/. */
  extensionDir: string;
  /** process.env.PATH. */
  searchPath?: string;
  platform?: NodeJS.Platform;
  /** Injected for tests; defaults to a real executable-file check. */
  isExecutable?: (file: string) => boolean;
  homeDir?: string;
}

/** The outcome: a binary, or a message telling the person what to fix. */
export type LookupResult =
  | { ok: true; server: FoundServer }
  | { ok: false; message: string };

export function defaultIsExecutable(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) {
      return false;
    }
    if (process.platform === "win32") {
      return true;
    }
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function expandHome(p: string, home: string): string {
  if (p === "~") {
    return home;
  }
  if (p.startsWith("~/") || p.startsWith("~\\")) {
    return path.join(home, p.slice(2));
  }
  return p;
}

/**
 * findServer applies the documented order: the sessionls.path setting, the
 * SESSIONLS_PATH environment variable, the binary bundled in the extension,
 * then `sessionls` on PATH. An explicit setting or variable that points at
 * nothing usable is an error rather than a silent fall-through: the person
 * asked for that binary and should learn that it is not there.
 */
export function findServer(lookup: ServerLookup): LookupResult {
  const platform = lookup.platform ?? process.platform;
  const isExecutable = lookup.isExecutable ?? defaultIsExecutable;
  const home = lookup.homeDir ?? os.homedir();
  const exe = platform === "win32" ? "sessionls.exe" : "sessionls";

  const explicit: Array<[string | undefined, ServerSource, string]> = [
    [lookup.setting, "setting", "the sessionls.path setting"],
    [lookup.envPath, "environment", "the SESSIONLS_PATH environment variable"],
  ];
  for (const [value, source, what] of explicit) {
    const trimmed = value?.trim();
    if (!trimmed) {
      continue;
    }
    const file = expandHome(trimmed, home);
    if (isExecutable(file)) {
      return { ok: true, server: { command: file, source } };
    }
    return {
      ok: false,
      message: `sessionls: ${what} names ${file}, which is not an executable file. ${INSTALL_HINT}`,
    };
  }

  const bundled = path.join(lookup.extensionDir, "bin", exe);
  if (isExecutable(bundled)) {
    return { ok: true, server: { command: bundled, source: "bundled" } };
  }

  const dirs = (lookup.searchPath ?? "").split(platform === "win32" ? ";" : ":");
  for (const dir of dirs) {
    if (!dir) {
      continue;
    }
    const file = path.join(dir, exe);
    if (isExecutable(file)) {
      return { ok: true, server: { command: file, source: "PATH" } };
    }
  }
  return {
    ok: false,
    message: `sessionls: cannot find the sessionls language server. ${INSTALL_HINT}`,
  };
}
