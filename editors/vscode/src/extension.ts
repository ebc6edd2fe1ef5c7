// The sessionls VS Code extension: starts `sessionls serve`, forwards the
// sessionls.* settings, and adds a budget command and a status bar item.
import * as vscode from "vscode";
import {
  DocumentSelector,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";
import { CMD_SHOW_CONTEXT_MAP, ContextMaps } from "./contextmap";
import { parseBudget, SessionStatus, setTomlBudget, statusText, statusTooltip, validateBudget } from "./format";
import { findServer, INSTALL_HINT, LookupResult } from "./server-path";

const SECTION = "sessionls";
/** The server's own command (registered by vscode-languageclient). */
const SERVER_SET_BUDGET = "sessionls.setBudget";
const CMD_SET_BUDGET = "sessionls.setContextBudget";
const CMD_RESTART = "sessionls.restartServer";
const CMD_SHOW_OUTPUT = "sessionls.showOutput";
const CMD_FIX_ALL = "sessionls.fixAll";
/** workspaceState key: the .vscode/settings.json this extension created for the budget. */
const CREATED_SETTINGS = "sessionls.createdSettingsFile";
const CMD_CHECK_IN_TERMINAL = "sessionls.checkInTerminal";
/** The server's fix-all code action kind (what `sessionls check --fix` does). */
const KIND_FIX_ALL = "source.fixAll.sessionls";
/**
 * VS Code does not hand extensions a text document of 50 MB or more
 * (files.maxMemoryForLargeFilesMB aside): such a session gets no
 * diagnostics or lenses, so the extension says so and offers the CLI.
 */
export const LARGE_FILE_BYTES = 50 * 1024 * 1024;
/**
 * VS Code draws a resolved code lens (one with its command) wherever it is,
 * on screen or not: every refresh of a session with thousands of units
 * re-rendered thousands of lens widgets, 5 to 8 s behind each keystroke on
 * a 20 MB session in code-server (E2E_ONLY=lag in test/e2e.js). Past this
 * many lenses, the extension hands VS Code the server's lenses without
 * their commands and gives each its command back when VS Code resolves it,
 * which it does for the lenses on screen only (no server round trip).
 */
const DEFER_LENSES_ABOVE = 200;

/** A lens whose command the extension keeps until VS Code resolves it. */
class DeferredLens extends vscode.CodeLens {
  constructor(
    range: vscode.Range,
    readonly deferred: vscode.Command,
  ) {
    super(range);
  }
}

const STATUS_REQUEST = "sessionls/status";
const STATUS_DEBOUNCE_MS = 200;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const ext = new SessionlsExtension(context);
  context.subscriptions.push(ext);
  await ext.start();
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}

interface InitOptions {
  budget: number | null;
  checks: string[];
  files: string[];
  tokens: boolean;
  tokenizer: string | null;
}

function readSettings(): InitOptions {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const budget = cfg.get<number | null>("budget", null);
  return {
    budget: typeof budget === "number" && budget > 0 ? budget : null,
    checks: cfg.get<string[]>("checks", []) ?? [],
    files: cfg.get<string[]>("files", ["**/*.jsonl"]) ?? ["**/*.jsonl"],
    tokens: cfg.get<boolean>("tokens", false) === true,
    tokenizer: cfg.get<string | null>("tokenizer", null) ?? null,
  };
}

function documentSelector(files: string[]): DocumentSelector {
  const selector: DocumentSelector = [
    { language: "jsonl" },
    { scheme: "file", pattern: "**/*.jsonl" },
  ];
  const seen = new Set(["**/*.jsonl"]);
  for (const glob of files) {
    const g = typeof glob === "string" ? glob.trim() : "";
    if (g !== "" && !seen.has(g)) {
      seen.add(g);
      selector.push({ scheme: "file", pattern: g });
    }
  }
  return selector;
}

class SessionlsExtension implements vscode.Disposable {
  private readonly output: vscode.OutputChannel;
  private readonly statusItem: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private client: LanguageClient | undefined;
  private selector: DocumentSelector = documentSelector([]);
  /** Serializes start/stop so that overlapping restarts cannot interleave. */
  private lifecycle: Promise<void> = Promise.resolve();
  private statusTimer: NodeJS.Timeout | undefined;
  private statusSeq = 0;
  private statusUnsupported = false;
  /** Marks the running client as on its way out (see the middleware). */
  private retireClient: (() => void) | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel("sessionls");
    this.statusItem = vscode.window.createStatusBarItem("sessionls.status", vscode.StatusBarAlignment.Right, 100);
    this.statusItem.name = "sessionls context budget";
    this.statusItem.command = CMD_SET_BUDGET;

    this.disposables.push(
      this.output,
      this.statusItem,
      vscode.commands.registerCommand(CMD_SET_BUDGET, () => this.promptBudget()),
      vscode.commands.registerCommand(CMD_RESTART, () => this.restart("restart requested")),
      vscode.commands.registerCommand(CMD_SHOW_OUTPUT, () => this.output.show(true)),
      vscode.commands.registerCommand(CMD_FIX_ALL, () =>
        vscode.commands.executeCommand("editor.action.sourceAction", { kind: KIND_FIX_ALL, apply: "first" }),
      ),
      vscode.commands.registerCommand(CMD_CHECK_IN_TERMINAL, (uri?: vscode.Uri) => this.checkInTerminal(uri)),
      new ContextMaps({ client: () => this.client, cliPath: () => this.cliBinary(), output: this.output }),
      vscode.window.tabGroups.onDidChangeTabs((e) => this.onTabsOpened(e.opened)),
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfigurationChanged(e)),
      vscode.window.onDidChangeActiveTextEditor(() => this.scheduleStatus()),
      vscode.workspace.onDidOpenTextDocument(() => this.scheduleStatus()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document === vscode.window.activeTextEditor?.document) {
          this.scheduleStatus();
        }
      }),
      // Diagnostics arrive after the server analysed a change: a good moment
      // to ask for fresh numbers too.
      vscode.languages.onDidChangeDiagnostics((e) => {
        const active = vscode.window.activeTextEditor?.document.uri.toString();
        if (active && e.uris.some((u) => u.toString() === active)) {
          this.scheduleStatus();
        }
      }),
    );
  }

  /** Files already told about: one hint per file and session. */
  private readonly hintedLarge = new Set<string>();

  /**
   * A session file opened in a tab with no text document behind it for
   * extensions (VS Code keeps files of 50 MB or more from them): say why it
   * has no diagnostics or lenses, and offer `sessionls check` in a terminal.
   */
  private async onTabsOpened(tabs: readonly vscode.Tab[]): Promise<void> {
    for (const tab of tabs) {
      const input = tab.input;
      if (!(input instanceof vscode.TabInputText) || input.uri.scheme !== "file" || !input.uri.path.endsWith(".jsonl")) {
        continue;
      }
      const key = input.uri.toString();
      if (this.hintedLarge.has(key)) {
        continue;
      }
      let size = 0;
      try {
        size = (await vscode.workspace.fs.stat(input.uri)).size;
      } catch {
        continue;
      }
      if (size < LARGE_FILE_BYTES) {
        continue;
      }
      this.hintedLarge.add(key);
      const mb = Math.round(size / (1024 * 1024));
      const choice = await vscode.window.showInformationMessage(
        `sessionls: ${vscode.workspace.asRelativePath(input.uri)} is ${mb} MB. VS Code does not give extensions ` +
          "files of 50 MB or more, so it gets no diagnostics or lenses here. The CLI checks it in seconds.",
        "Check in Terminal",
        "Show Context Map",
      );
      if (choice === "Check in Terminal") {
        await this.checkInTerminal(input.uri);
      } else if (choice === "Show Context Map") {
        await vscode.commands.executeCommand(CMD_SHOW_CONTEXT_MAP, input.uri);
      }
    }
  }

  /** Runs `sessionls check` and `sessionls budget` on a file in a terminal. */
  private async checkInTerminal(uri?: vscode.Uri): Promise<void> {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!target || target.scheme !== "file") {
      void vscode.window.showWarningMessage("sessionls: no session file to check");
      return;
    }
    const bin = this.cliBinary();
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const term = vscode.window.createTerminal({ name: "sessionls" });
    term.show();
    term.sendText(`${q(bin)} check ${q(target.fsPath)}; ${q(bin)} budget ${q(target.fsPath)} | tail -n 3`);
  }

  /** The sessionls binary the server runs, for the CLI (sessionls on PATH when none is found). */
  private cliBinary(): string {
    const found = this.findServer();
    return found.ok ? found.server.command : "sessionls";
  }

  /** findServer with the sessionls.path setting, the environment and this extension's directory as they are now. */
  private findServer(): LookupResult {
    const cfg = vscode.workspace.getConfiguration(SECTION);
    return findServer({
      setting: cfg.get<string>("path", ""),
      envPath: process.env.SESSIONLS_PATH,
      extensionDir: this.context.extensionPath,
      searchPath: process.env.PATH,
    });
  }

  dispose(): void {
    if (this.statusTimer) {
      clearTimeout(this.statusTimer);
    }
    const client = this.client;
    this.client = undefined;
    if (client) {
      void client.stop().catch(() => undefined);
    }
    for (const d of this.disposables) {
      d.dispose();
    }
  }

  start(): Promise<void> {
    return this.enqueue(() => this.doStart());
  }

  restart(reason: string): Promise<void> {
    this.output.appendLine(`[sessionls] ${reason}: restarting the server`);
    return this.enqueue(async () => {
      await this.doStop();
      await this.doStart();
    });
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.lifecycle = this.lifecycle.then(step).catch((err: unknown) => {
      this.output.appendLine(`[sessionls] ${String(err)}`);
    });
    return this.lifecycle;
  }

  private async doStop(): Promise<void> {
    this.retireClient?.();
    this.retireClient = undefined;
    const client = this.client;
    this.client = undefined;
    this.statusItem.hide();
    if (!client) {
      return;
    }
    try {
      await client.stop(2000);
    } catch (err) {
      this.output.appendLine(`[sessionls] stopping the server: ${String(err)}`);
    }
  }

  private async doStart(): Promise<void> {
    const found = this.findServer();
    if (!found.ok) {
      this.output.appendLine(`[sessionls] ${found.message}`);
      void this.offerFix(found.message);
      return;
    }
    const { command, source } = found.server;
    this.output.appendLine(`[sessionls] starting ${command} serve (found via ${source})`);

    const settings = readSettings();
    this.selector = documentSelector(settings.files);
    this.statusUnsupported = false;
    // A client about to be replaced must not send the configuration change
    // that replaces it: the notification would race the shutdown and fail.
    let retired = false;
    this.retireClient = () => {
      retired = true;
    };

    const serverOptions: ServerOptions = {
      run: { command, args: ["serve"], transport: TransportKind.stdio },
      debug: { command, args: ["serve"], transport: TransportKind.stdio },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: this.selector,
      // The server reads settings.sessionls.{budget,checks,files} from
      // workspace/didChangeConfiguration, so changes apply without a restart.
      synchronize: { configurationSection: SECTION },
      initializationOptions: () => readSettings(),
      outputChannel: this.output,
      traceOutputChannel: this.output,
      middleware: {
        workspace: {
          didChangeConfiguration: (sections, next) => (retired ? Promise.resolve() : next(sections)),
        },
        provideCodeLenses: async (document, token, next) => {
          const lenses = await next(document, token);
          if (!lenses || lenses.length <= DEFER_LENSES_ABOVE) {
            return lenses;
          }
          return lenses.map((l) => (l.command ? new DeferredLens(l.range, l.command) : l));
        },
        resolveCodeLens: (lens, token, next) => {
          if (lens instanceof DeferredLens) {
            lens.command = lens.deferred;
            return lens;
          }
          return next(lens, token);
        },
        executeCommand: async (cmd, args, next) => {
          if (cmd !== SERVER_SET_BUDGET) {
            return next(cmd, args);
          }
          // A lens click sends the server command without a number: ask for
          // one first. With a number it goes straight through.
          const given = args.length > 0 && typeof args[0] === "number" ? (args[0] as number) : undefined;
          if (given !== undefined && given > 0) {
            await this.storeBudget(given);
            return next(cmd, [given]);
          }
          const chosen = await this.askBudget();
          if (chosen === undefined) {
            return undefined;
          }
          await this.storeBudget(chosen);
          return chosen === null ? undefined : next(cmd, [chosen]);
        },
      },
    };

    const client = new LanguageClient("sessionls", "sessionls", serverOptions, clientOptions);
    this.client = client;
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        this.scheduleStatus();
      } else if (e.newState === State.Stopped) {
        this.statusItem.hide();
      }
    });
    try {
      await client.start();
    } catch (err) {
      this.output.appendLine(`[sessionls] the server did not start: ${String(err)}`);
      void vscode.window
        .showErrorMessage(`sessionls: the language server (${command}) did not start: ${String(err)}`, "Show Output")
        .then((pick) => pick && this.output.show(true));
      return;
    }
    this.scheduleStatus();
  }

  private async offerFix(message: string): Promise<void> {
    const open = "Open Setting";
    const pick = await vscode.window.showErrorMessage(message.includes(INSTALL_HINT) ? message : `${message} ${INSTALL_HINT}`, open);
    if (pick === open) {
      await vscode.commands.executeCommand(settingsCommandFor("path"), `${SECTION}.path`);
    }
  }

  private onConfigurationChanged(e: vscode.ConfigurationChangeEvent): void {
    // The document selector is fixed when the client is created, so new file
    // globs need a new client; a new binary path needs a new server.
    if (e.affectsConfiguration("sessionls.path") || e.affectsConfiguration("sessionls.files")) {
      this.retireClient?.();
      void this.restart("sessionls.path or sessionls.files changed");
      return;
    }
    if (e.affectsConfiguration(SECTION)) {
      this.scheduleStatus();
    }
  }

  /** The palette command and the status bar click. */
  private async promptBudget(): Promise<void> {
    const chosen = await this.askBudget();
    if (chosen === undefined) {
      return;
    }
    // Where a sessionls.toml governs the file, ask where the budget goes:
    // the editor setting would silently win over the file the CLI and CI
    // read.
    const active = vscode.window.activeTextEditor?.document.uri;
    const toml = active ? await configFileFor(active) : undefined;
    let inToml = false;
    if (toml) {
      const pick = await vscode.window.showQuickPick(
        [
          {
            label: vscode.workspace.asRelativePath(toml),
            description: "sessionls.toml: shared with the CLI and CI",
            inToml: true,
          },
          {
            label: "Workspace setting sessionls.budget",
            description: "this editor only; it wins over sessionls.toml",
            inToml: false,
          },
        ],
        { title: "sessionls: where should the budget be set?", ignoreFocusOut: true },
      );
      if (!pick) {
        return;
      }
      inToml = pick.inToml;
    }
    if (inToml && toml) {
      await this.writeTomlBudget(toml, chosen);
      await this.storeBudget(null); // so that the file's budget applies
    } else {
      await this.storeBudget(chosen);
    }
    const client = this.client;
    if ((chosen !== null || inToml) && client && client.isRunning() && this.serverHasSetBudget(client)) {
      try {
        // With the budget in sessionls.toml, the editor's budget is cleared.
        await client.sendRequest("workspace/executeCommand", { command: SERVER_SET_BUDGET, arguments: [inToml ? null : chosen] });
      } catch (err) {
        this.output.appendLine(`[sessionls] ${SERVER_SET_BUDGET} failed: ${String(err)}`);
      }
    }
    this.scheduleStatus();
  }

  /** Sets (or with null removes) the top-level `budget` of a sessionls.toml, keeping the rest of it. */
  private async writeTomlBudget(file: vscode.Uri, budget: number | null): Promise<void> {
    try {
      const text = Buffer.from(await vscode.workspace.fs.readFile(file)).toString("utf8");
      await vscode.workspace.fs.writeFile(file, Buffer.from(setTomlBudget(text, budget), "utf8"));
    } catch (err) {
      void vscode.window.showErrorMessage(`sessionls: could not write ${vscode.workspace.asRelativePath(file)}: ${String(err)}`);
    }
  }

  private serverHasSetBudget(client: LanguageClient): boolean {
    const commands = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
    return commands.includes(SERVER_SET_BUDGET);
  }

  /** Resolves to a budget, null for "remove the budget", undefined if cancelled. */
  private async askBudget(): Promise<number | null | undefined> {
    const current = readSettings().budget;
    const text = await vscode.window.showInputBox({
      title: "sessionls: Set Context Budget",
      prompt: "Context budget in characters (JSON.stringify length). Leave empty to remove the budget.",
      placeHolder: "e.g. 8000",
      value: current === null ? "" : String(current),
      validateInput: validateBudget,
      ignoreFocusOut: true,
    });
    if (text === undefined || validateBudget(text) !== undefined) {
      return undefined;
    }
    return parseBudget(text);
  }

  /** Stores the budget in the workspace settings, or the user settings without a workspace. */
  private async storeBudget(budget: number | null): Promise<void> {
    const cfg = vscode.workspace.getConfiguration(SECTION);
    const folder = vscode.workspace.workspaceFolders?.[0];
    const target = folder ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    const settingsFile = folder ? vscode.Uri.joinPath(folder.uri, ".vscode", "settings.json") : undefined;
    const existed = settingsFile ? await exists(settingsFile) : true;
    try {
      if (budget === null && cfg.inspect<number | null>("budget")?.workspaceValue === undefined && target === vscode.ConfigurationTarget.Workspace) {
        return; // nothing to remove: do not create a settings file for it
      }
      await cfg.update("budget", budget === null ? undefined : budget, target);
    } catch (err) {
      this.output.appendLine(`[sessionls] could not store sessionls.budget: ${String(err)}`);
      return;
    }
    if (!settingsFile) {
      return;
    }
    const created = this.context.workspaceState.get<string>(CREATED_SETTINGS);
    if (!existed && budget !== null) {
      // Ours: remembered, so that clearing the budget can take it away.
      await this.context.workspaceState.update(CREATED_SETTINGS, settingsFile.toString());
    } else if (budget === null && created === settingsFile.toString()) {
      await removeIfEmpty(settingsFile);
      await this.context.workspaceState.update(CREATED_SETTINGS, undefined);
    }
  }

  private scheduleStatus(): void {
    if (this.statusTimer) {
      clearTimeout(this.statusTimer);
    }
    this.statusTimer = setTimeout(() => {
      this.statusTimer = undefined;
      void this.refreshStatus();
    }, STATUS_DEBOUNCE_MS);
  }

  private async refreshStatus(): Promise<void> {
    const seq = ++this.statusSeq;
    const editor = vscode.window.activeTextEditor;
    const client = this.client;
    if (!editor || !client || !client.isRunning() || this.statusUnsupported) {
      this.statusItem.hide();
      return;
    }
    const doc = editor.document;
    if (vscode.languages.match(this.selector as vscode.DocumentSelector, doc) === 0) {
      this.statusItem.hide();
      return;
    }
    let status: SessionStatus;
    try {
      status = await client.sendRequest<SessionStatus>(STATUS_REQUEST, { uri: doc.uri.toString() });
    } catch (err) {
      if (seq !== this.statusSeq) {
        return;
      }
      const code = (err as { code?: number }).code;
      if (code === -32601) {
        // An older server without the request: stop asking until a restart.
        this.statusUnsupported = true;
        this.output.appendLine(`[sessionls] the server does not answer ${STATUS_REQUEST}; no status bar item`);
      } else {
        this.output.appendLine(`[sessionls] ${STATUS_REQUEST} failed: ${String(err)}`);
      }
      this.statusItem.hide();
      return;
    }
    // A later refresh (or editor switch) has superseded this one.
    if (seq !== this.statusSeq || vscode.window.activeTextEditor?.document !== doc || !status) {
      return;
    }
    this.statusItem.text = statusText(status);
    this.statusItem.tooltip = statusTooltip(status);
    this.statusItem.backgroundColor = status.error
      ? new vscode.ThemeColor("statusBarItem.warningBackground")
      : undefined;
    this.statusItem.show();
  }
}

/**
 * The settings command that opens the scope holding the effective value of
 * sessionls.<key>: the most specific one that sets it (folder, workspace,
 * user), so that "Open Setting" shows the value that is in force rather
 * than the User tab.
 */
function settingsCommandFor(key: string): string {
  const info = vscode.workspace.getConfiguration(SECTION).inspect(key);
  if (info?.workspaceFolderValue !== undefined) {
    return "workbench.action.openFolderSettings";
  }
  if (info?.workspaceValue !== undefined) {
    return "workbench.action.openWorkspaceSettings";
  }
  return "workbench.action.openSettings";
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

/** The configuration file that applies to a file: the closest sessionls.toml or .sessionls.toml above it, as the server finds it. */
async function configFileFor(uri: vscode.Uri): Promise<vscode.Uri | undefined> {
  if (uri.scheme !== "file") {
    return undefined;
  }
  let dir = vscode.Uri.joinPath(uri, "..");
  for (;;) {
    for (const name of ["sessionls.toml", ".sessionls.toml"]) {
      const candidate = vscode.Uri.joinPath(dir, name);
      try {
        const st = await vscode.workspace.fs.stat(candidate);
        if (st.type & vscode.FileType.File) {
          return candidate;
        }
      } catch {
        // not there
      }
    }
    const parent = vscode.Uri.joinPath(dir, "..");
    if (parent.path === dir.path) {
      return undefined;
    }
    dir = parent;
  }
}

/** Deletes a settings file this extension created once it holds nothing ({}), and its .vscode folder when that is empty too. */
async function removeIfEmpty(settingsFile: vscode.Uri): Promise<void> {
  try {
    const text = Buffer.from(await vscode.workspace.fs.readFile(settingsFile)).toString("utf8");
    if (text.replace(/\/\/[^\n]*|\s/g, "") !== "{}") {
      return;
    }
    await vscode.workspace.fs.delete(settingsFile);
    const dir = vscode.Uri.joinPath(settingsFile, "..");
    if ((await vscode.workspace.fs.readDirectory(dir)).length === 0) {
      await vscode.workspace.fs.delete(dir);
    }
  } catch {
    // gone already, or not ours to judge
  }
}
