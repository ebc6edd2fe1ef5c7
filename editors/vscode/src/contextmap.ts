// "sessionls: Show Context Map": the page `sessionls map` writes, in a
// webview beside the editor. The server renders it (sessionls/contextMap
// with html: true), so the webview shows the CLI's very page, fed from the
// document the server holds: it follows edits and budget changes, and a
// click on a unit (the page posts {command: "reveal", line}) moves the
// editor to that line. A file VS Code does not hand to extensions (50 MB or
// more) has no document: its page is made by running `sessionls map` on it.
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { mapArgs, revealLine } from "./mapargs";

export const CMD_SHOW_CONTEXT_MAP = "sessionls.showContextMap";
const CONTEXT_MAP_REQUEST = "sessionls/contextMap";
/** Edits and diagnostics come in bursts: one request per pause. */
const REFRESH_DEBOUNCE_MS = 300;
/** `sessionls map` on a large file: seconds per gigabyte; give up after this. */
const CLI_TIMEOUT_MS = 5 * 60 * 1000;

interface ContextMapResult {
  version: number;
  html?: string;
}

/** What the map panels need from the extension. */
export interface MapHost {
  client(): LanguageClient | undefined;
  /** The sessionls binary for the CLI fallback. */
  cliPath(): string;
  output: vscode.OutputChannel;
}

/** One webview per session file, re-used when the command runs again. */
export class ContextMaps implements vscode.Disposable {
  private readonly panels = new Map<string, MapPanel>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly host: MapHost) {
    this.disposables.push(
      vscode.commands.registerCommand(CMD_SHOW_CONTEXT_MAP, (uri?: vscode.Uri) => this.show(uri)),
      vscode.workspace.onDidChangeTextDocument((e) => this.panels.get(e.document.uri.toString())?.schedule()),
      // Diagnostics come once the server has analysed a change, its budget's
      // included (a sessionls.toml edited on disk, setBudget).
      vscode.languages.onDidChangeDiagnostics((e) => {
        for (const u of e.uris) {
          this.panels.get(u.toString())?.schedule();
        }
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("sessionls")) {
          for (const p of this.panels.values()) {
            p.schedule();
          }
        }
      }),
    );
  }

  /** The command: the map of uri, else of the active editor's or tab's file. */
  async show(uri?: vscode.Uri): Promise<void> {
    const target = uri instanceof vscode.Uri ? uri : activeSessionUri();
    if (!target) {
      void vscode.window.showWarningMessage("sessionls: open a session file to see its context map");
      return;
    }
    const key = target.toString();
    let panel = this.panels.get(key);
    if (!panel) {
      panel = new MapPanel(this.host, target, () => this.panels.delete(key));
      this.panels.set(key, panel);
    } else {
      panel.reveal();
    }
    await panel.refresh();
  }

  dispose(): void {
    for (const p of [...this.panels.values()]) {
      p.dispose();
    }
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

/** The file of the active editor, or of the active tab when VS Code gave no editor (a large file). */
function activeSessionUri(): vscode.Uri | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor) {
    return editor.document.uri;
  }
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputText) {
    return input.uri;
  }
  return undefined;
}

class MapPanel {
  private readonly panel: vscode.WebviewPanel;
  private readonly disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private seq = 0;
  /** The column the editor of the file is in: reveals go there. */
  private editorColumn: vscode.ViewColumn;
  /** Whether the panel was visible at its last view state change. */
  private shown = true;

  constructor(
    private readonly host: MapHost,
    private readonly uri: vscode.Uri,
    onDispose: () => void,
  ) {
    this.editorColumn = vscode.window.activeTextEditor?.viewColumn ?? vscode.ViewColumn.One;
    this.panel = vscode.window.createWebviewPanel(
      "sessionls.contextMap",
      `Context map: ${path.basename(uri.path)}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      // The page is self-contained (its CSP lets only its own script run,
      // by hash): it loads nothing, so no local resource root is given.
      { enableScripts: true, enableCommandUris: false, localResourceRoots: [], enableFindWidget: true },
    );
    this.panel.webview.html = placeholder("Drawing the context map…");
    this.disposables.push(
      this.panel.webview.onDidReceiveMessage((msg) => {
        const line = revealLine(msg);
        if (line !== undefined) {
          void this.revealInEditor(line);
        }
      }),
      this.panel.onDidChangeViewState((e) => {
        // Drawn again only when it comes back into view (edits made
        // meanwhile): the state also changes when the panel merely loses
        // the focus, as a click on a unit moves it to the editor, and a
        // page made by the CLI (a file of 50 MB or more) takes seconds and
        // would lose its place.
        const visible = e.webviewPanel.visible;
        if (visible && !this.shown) {
          this.schedule();
        }
        this.shown = visible;
      }),
      this.panel.onDidDispose(() => {
        onDispose();
        this.dispose();
      }),
    );
  }

  reveal(): void {
    this.panel.reveal(undefined, true);
  }

  schedule(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.panel.visible) {
        void this.refresh();
      }
    }, REFRESH_DEBOUNCE_MS);
  }

  async refresh(): Promise<void> {
    const seq = ++this.seq;
    let html: string;
    try {
      html = await this.render();
    } catch (err) {
      if (seq !== this.seq) {
        return;
      }
      const why = err instanceof Error ? err.message : String(err);
      this.host.output.appendLine(`[sessionls] context map of ${this.uri.toString()}: ${why}`);
      this.panel.webview.html = placeholder(`No context map: ${why}`);
      return;
    }
    // A later refresh has superseded this one.
    if (seq === this.seq) {
      this.panel.webview.html = html;
    }
  }

  /** The page: from the server for a document it holds, else from the CLI. */
  private async render(): Promise<string> {
    const client = this.host.client();
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === this.uri.toString());
    if (doc && client && client.isRunning()) {
      const res = await client.sendRequest<ContextMapResult>(CONTEXT_MAP_REQUEST, { uri: this.uri.toString(), html: true });
      if (!res || typeof res.html !== "string") {
        throw new Error(`the server answered ${CONTEXT_MAP_REQUEST} with no page`);
      }
      return res.html;
    }
    if (this.uri.scheme !== "file") {
      throw new Error("the language server is not running, and only a file on disk can be mapped without it");
    }
    return this.renderWithCli(this.uri.fsPath);
  }

  /** Runs `sessionls map FILE -o TMP` (the file VS Code keeps from extensions). */
  private async renderWithCli(file: string): Promise<string> {
    const cfg = vscode.workspace.getConfiguration("sessionls");
    const budget = cfg.get<number | null>("budget", null);
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "sessionls-map-"));
    const out = path.join(dir, "map.html");
    const args = mapArgs(
      file,
      out,
      typeof budget === "number" ? budget : null,
      cfg.get<boolean>("tokens", false) === true,
      cfg.get<string | null>("tokenizer", null) ?? null,
    );
    const bin = this.host.cliPath();
    this.panel.webview.html = placeholder(`Running ${path.basename(bin)} map on ${path.basename(file)}…`);
    try {
      await new Promise<void>((resolve, reject) => {
        execFile(bin, args, { timeout: CLI_TIMEOUT_MS, maxBuffer: 1 << 20 }, (err, _stdout, stderr) => {
          // Exit 1: the page is written, but the file does not load (it says so).
          const code = (err as { code?: unknown } | null)?.code;
          if (err && code !== 1) {
            reject(new Error(`${bin} ${args.join(" ")}: ${String(stderr).trim() || err.message}`));
          } else {
            resolve();
          }
        });
      });
      return await fs.promises.readFile(out, "utf8");
    } finally {
      await fs.promises.rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  private async revealInEditor(line: number): Promise<void> {
    const visible = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.uri.toString());
    if (visible?.viewColumn) {
      this.editorColumn = visible.viewColumn;
    }
    const pos = new vscode.Position(line - 1, 0);
    const selection = new vscode.Range(pos, pos);
    try {
      const editor = await vscode.window.showTextDocument(this.uri, {
        viewColumn: this.editorColumn,
        selection,
        preserveFocus: false,
      });
      editor.revealRange(selection, vscode.TextEditorRevealType.InCenter);
      return;
    } catch (err) {
      // A file VS Code keeps from extensions (50 MB or more) has no
      // TextDocument, so showTextDocument refuses it; the workbench itself
      // still opens it, and vscode.open hands its editor the selection
      // (the editor centres a selection it moves to). When VS Code first
      // asks whether to open a large file, "Open Anyway" keeps it.
      try {
        const options: vscode.TextDocumentShowOptions = { viewColumn: this.editorColumn, selection, preserveFocus: false };
        await vscode.commands.executeCommand("vscode.open", this.uri, options);
      } catch (err2) {
        void vscode.window.showWarningMessage(
          `sessionls: cannot open ${path.basename(this.uri.path)} at line ${line} (${messageOf(err)}; ${messageOf(err2)}): ` +
            `open the file and go to line ${line} with "Go to Line/Column…" (Ctrl+G).`,
        );
      }
    }
  }

  dispose(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.seq++;
    for (const d of this.disposables.splice(0)) {
      d.dispose();
    }
    this.panel.dispose();
  }
}

/** A page that only says something (no script). */
function placeholder(text: string): string {
  const esc = text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] as string);
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"></head><body style="font-family:sans-serif;padding:1em"><p id="sessionls-map-status">${esc}</p></body></html>`;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
