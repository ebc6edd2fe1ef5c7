// Drives the sessionls binary over stdio with Microsoft's own LSP client
// libraries (vscode-languageserver-protocol / vscode-jsonrpc), the ones
// VS Code's language client is built on. Run by lsp/thirdparty_test.go:
//
//   node client.mjs <sessionls binary> <session.jsonl> <expected.json> <install dir>
//
// expected.json lists the diagnostics the server must publish for the
// session. <install dir> is where install.sh put the libraries (outside the
// source tree): they are loaded from its node_modules. Exits 0 when every
// check passes; prints what failed otherwise.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';

const [bin, sessionPath, expectedPath, installDir] = process.argv.slice(2);
// A bare import resolves from this file's directory; the libraries are in
// installDir, so they are required from there (they are CommonJS).
const proto = createRequire(join(installDir, 'package.json'))('vscode-languageserver-protocol/node.js');
const { createProtocolConnection, StreamMessageReader, StreamMessageWriter, CancellationTokenSource } = proto;

const expected = JSON.parse(readFileSync(expectedPath, 'utf8'));
const sessionText = readFileSync(sessionPath, 'utf8');
const sessionURI = pathToFileURL(sessionPath).href;
const hoverParams = { textDocument: { uri: sessionURI }, position: { line: 0, character: 0 } };

function start() {
  const child = spawn(bin, ['serve', '--stdio', '--log-level', 'warn'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited };
}

async function expectError(promise, code, what) {
  try {
    const res = await promise;
    assert.fail(`${what}: want error ${code}, got result ${JSON.stringify(res)}`);
  } catch (err) {
    if (err instanceof assert.AssertionError) throw err;
    assert.equal(err.code, code, `${what}: ${err.message}`);
  }
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// A: the protocol connection, as VS Code's client uses it.
async function protocolClient() {
  const { child, exited } = start();
  const conn = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const published = new Map();
  let onPublish = () => {};
  conn.onNotification('textDocument/publishDiagnostics', (p) => {
    published.set(p.uri, p);
    onPublish(p);
  });
  // The server asks for its settings after `initialized` and waits for
  // the answer; holding it back keeps later requests queued, so a cancel
  // is sure to reach them before they run.
  let releaseConfig, configAsked;
  const configGate = new Promise((r) => (releaseConfig = r));
  const asked = new Promise((r) => (configAsked = r));
  conn.onRequest('workspace/configuration', async () => {
    configAsked();
    await configGate;
    return [null];
  });
  conn.listen();

  await expectError(conn.sendRequest('textDocument/hover', hoverParams), -32002, 'hover before initialize');
  const init = await conn.sendRequest('initialize', {
    processId: process.pid, rootUri: null, capabilities: { workspace: { configuration: true } },
  });
  assert.equal(init.capabilities.positionEncoding, 'utf-16');
  assert.equal(init.capabilities.textDocumentSync.change, 2);
  await expectError(conn.sendRequest('sessionls/nope', {}), -32601, 'unknown method');
  await expectError(conn.sendRequest('textDocument/completion', hoverParams), -32601, 'unimplemented method');
  await conn.sendNotification('initialized', {});
  await withTimeout(asked, 5000, 'workspace/configuration');

  const cts = new CancellationTokenSource();
  const hover = conn.sendRequest('textDocument/hover', hoverParams, cts.token);
  cts.cancel(); // $/cancelRequest with the numeric id
  releaseConfig();
  await withTimeout(expectError(hover, -32800, 'cancelled hover (numeric id)'), 5000, 'cancelled hover');

  const gotDiagnostics = new Promise((r) => (onPublish = (p) => p.uri === sessionURI && r(p)));
  await conn.sendNotification('textDocument/didOpen', {
    textDocument: { uri: sessionURI, languageId: 'jsonl', version: 7, text: sessionText },
  });
  const pub = await withTimeout(gotDiagnostics, 5000, 'publishDiagnostics');
  assert.equal(pub.version, 7);
  assert.deepEqual(pub.diagnostics.map((d) => ({
    code: d.code, line: d.range.start.line, startCharacter: d.range.start.character,
    endCharacter: d.range.end.character, severity: d.severity, message: d.message, source: d.source,
  })), expected);

  const lenses = await conn.sendRequest('textDocument/codeLens', { textDocument: { uri: sessionURI } });
  assert.ok(lenses.length > 0 && lenses[0].command.title.startsWith('Σ '), JSON.stringify(lenses[0]));

  assert.equal(await conn.sendRequest('shutdown'), null);
  await expectError(conn.sendRequest('textDocument/hover', hoverParams), -32600, 'hover after shutdown');
  await conn.sendNotification('exit');
  assert.equal(await withTimeout(exited, 5000, 'exit'), 0, 'exit code after shutdown + exit');
  conn.dispose();
}

// B: hand-written messages on the same transport: string ids, {} params.
async function rawClient() {
  const { child, exited } = start();
  const reader = new StreamMessageReader(child.stdout);
  const writer = new StreamMessageWriter(child.stdin);
  const pending = new Map();
  let serverRequest = () => {};
  reader.listen((msg) => {
    if (msg.method !== undefined) {
      if (msg.id !== undefined) serverRequest(msg);
      return;
    }
    const resolve = pending.get(JSON.stringify(msg.id));
    if (resolve) resolve(msg);
  });
  const send = (msg) => writer.write({ jsonrpc: '2.0', ...msg });
  const call = (id, method, params) => {
    const p = new Promise((r) => pending.set(JSON.stringify(id), r));
    send(params === undefined ? { id, method } : { id, method, params });
    return withTimeout(p, 5000, `response to ${method} ${JSON.stringify(id)}`);
  };
  const configRequest = new Promise((r) => (serverRequest = (m) => m.method === 'workspace/configuration' && r(m)));

  const init = await call('init', 'initialize', {
    processId: null, rootUri: null, capabilities: { workspace: { configuration: true } },
  });
  assert.equal(init.error, undefined, JSON.stringify(init));
  send({ method: 'initialized', params: {} });
  const cfg = await withTimeout(configRequest, 5000, 'workspace/configuration');

  const byString = call('hover-1', 'textDocument/hover', hoverParams);
  const byNumber = call(41, 'textDocument/hover', hoverParams);
  send({ method: '$/cancelRequest', params: { id: 'hover-1' } });
  send({ method: '$/cancelRequest', params: { id: 41 } });
  send({ id: cfg.id, result: [null] });
  assert.equal((await byString).error?.code, -32800, 'cancel by string id');
  assert.equal((await byNumber).error?.code, -32800, 'cancel by numeric id');

  const sd = await call('sd', 'shutdown', {});
  assert.equal(sd.error, undefined, `shutdown with {} params: ${JSON.stringify(sd)}`);
  assert.equal(sd.result, null);
  assert.equal((await call('late', 'textDocument/hover', hoverParams)).error?.code, -32600);
  send({ method: 'exit', params: {} });
  assert.equal(await withTimeout(exited, 5000, 'exit'), 0, 'exit code after shutdown + exit with {} params');
}

// C: exit without shutdown exits 1; EOF without shutdown exits 1.
async function exitCodes() {
  for (const how of ['exit', 'eof']) {
    const { child, exited } = start();
    const writer = new StreamMessageWriter(child.stdin);
    await writer.write({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {} } });
    if (how === 'exit') await writer.write({ jsonrpc: '2.0', method: 'exit' });
    else child.stdin.end();
    assert.equal(await withTimeout(exited, 5000, how), 1, `exit code on ${how} without shutdown`);
  }
}

try {
  await protocolClient();
  console.log('ok protocol client: lifecycle errors, numeric cancel, diagnostics, shutdown/exit');
  await rawClient();
  console.log('ok raw client: string and numeric cancel, shutdown/exit with {} params');
  await exitCodes();
  console.log('ok exit codes without shutdown');
  process.exit(0);
} catch (err) {
  console.error('FAIL', err);
  process.exit(1);
}
