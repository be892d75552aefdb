// The createFxAgent declarations in pkg/index.d.ts, checked by `tsc --noEmit --strict` on code
// that uses every part: options and adapters, Agent / Session / Turn, the ACP update union, the
// events, the errors and the memory stores — plus lines that must not type-check.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const entry = join(root, 'pkg', 'index.js');

const USE = `
import {
  createFxAgent,
  createFxTerminal,
  memoryConfigStore,
  memoryOAuthSessionStore,
  memoryPromptHistoryStore,
  memorySessionStore,
} from ${JSON.stringify(entry)};
import type {
  Agent,
  ConfigOption,
  FxAgentError,
  FxAgentEvent,
  FxErrorCode,
  FxAgentOptions,
  FxTerminalEvent,
  FxTerminalOptions,
  PermissionRequest,
  Session,
  SessionStore,
  SessionUpdate,
  StopReason,
  TerminalAdapter,
  Turn,
  Workspace,
} from ${JSON.stringify(entry)};

const workspace: Workspace = {
  info: { version: 1, root: '/w', cwd: '/w', home: '/home/u', gitAvailable: false, ephemeral: true },
  permission: 'prompt',
  async exec({ command, signal, timeoutMs }) {
    signal.throwIfAborted();
    return { stdout: command + timeoutMs, stderr: '', exitCode: 0 };
  },
};

const store: SessionStore = memorySessionStore();
const asyncStore: SessionStore = {
  async load(id) {
    return id ? { bytes: new Uint8Array(), revision: '1' } : null;
  },
  async commit(_id, _bytes, expected) {
    return { revision: String(Number(expected ?? '0') + 1) };
  },
  list: () => [{ id: 'a', updatedAtMs: 1 }],
  remove() {},
};

function onEvent(event: FxAgentEvent): string {
  switch (event.type) {
    case 'session.forked':
      return event.from + ' -> ' + event.to;
    case 'config.changed':
      return event.configId + '=' + event.value + ' (' + event.source + ')';
    case 'request.retry':
      return 'retry ' + event.attempt + '/' + event.limit + ' in ' + event.delayMs;
    case 'runtime.exit':
      return 'exit ' + event.code;
    case 'session.unsaved':
      return event.sessionId + ' lost ' + event.turns + ' (' + event.code + ': ' + event.error + ') ' + event.bytes.byteLength;
    case 'permission.request':
      return event.request.toolCall.title;
    default:
      return event.type + '@' + event.timestamp;
  }
}

function onPermission(request: PermissionRequest): 'allow_once' | null {
  return request.options.some((o) => o.optionId === 'allow_once') ? 'allow_once' : null;
}

const options: FxAgentOptions = {
  fetch: undefined,
  env: { AI_GATEWAY_API_KEY: undefined, FX_GATEWAY_CHAT_URL: 'http://127.0.0.1:8788/v3/ai/language-model' },
  sessionStore: store,
  configStore: memoryConfigStore({ model: 'x/y' }),
  adapterTimeoutMs: 5000,
  workspace,
  onPermission,
  onEvent,
};

function render(update: SessionUpdate): string {
  switch (update.sessionUpdate) {
    case 'agent_message_chunk':
    case 'agent_thought_chunk':
    case 'user_message_chunk':
      return update.content.text;
    case 'tool_call':
      return update.title + ' ' + update.kind + ' ' + update.status;
    case 'tool_call_update':
      return update.status + (update.content?.[0]?.content.text ?? '') + (update.rawOutput?.exitCode ?? '');
  }
}

async function main(): Promise<StopReason> {
  const agent: Agent = await createFxAgent(options);
  const session: Session = await agent.createSession();
  const menu: ConfigOption[] = await session.loadConfigOptions();
  const model: ConfigOption | undefined = menu.find((o) => o.id === 'model') ?? session.configOptions[0];
  await session.setModel(model?.options[0]?.value ?? 'x/y');
  await session.setMode('code');
  await session.setConfig({ mode: 'ask' });
  const mode: 'code' | 'ask' = session.modes.currentModeId;
  const controller = new AbortController();
  const turn: Turn = session.prompt([{ type: 'text', text: 'hi' }, { type: 'resource', resource: { uri: 'file:///a' } }], {
    signal: controller.signal,
  });
  for await (const update of turn) console.log(render(update), mode);
  turn.cancel();
  try {
    await turn.result;
  } catch (error) {
    const code: string = (error as FxAgentError).code;
    console.log(code, retryLater(error as FxAgentError));
  }
  for (const info of await agent.listSessions()) console.log(info.sessionId, info.updatedAt, info.cwd);
  const reopened = await agent.openSession(session.id);
  console.log(reopened.history.map(render));
  await reopened.remove();
  const code: number = await agent.close();
  agent.abort();
  console.log(code, await agent.exited);
  return turn.stopReason;
}

const history = memoryPromptHistoryStore({ maxEntries: 10 });
const appended = history.append('/w', 'ls', Date.now());
const oauth = memoryOAuthSessionStore();
oauth.commit(new Uint8Array([1]), undefined);

// The terminal's sign-in options and auth events.
async function signIn(adapter: TerminalAdapter): Promise<number> {
  const seen: FxTerminalEvent[] = [];
  const options: FxTerminalOptions = {
    terminal: adapter,
    oauthSessionStore: oauth,
    adapterTimeoutMs: 2000,
    openUrl: (url: string) => url.startsWith('https://'),
    onEvent: (event) => {
      seen.push(event);
      if (event.type === 'auth.changed') console.log(event.timestamp);
    },
  };
  const runtime = await createFxTerminal(options);
  return runtime.exited;
}

// Branching on the documented codes.
function retryLater(error: FxAgentError): boolean {
  switch (error.code) {
    case 'FX_GATEWAY_HTTP_ERROR':
    case 'FX_GATEWAY_NETWORK_ERROR':
    case 'FX_ADAPTER_TIMEOUT':
      return true;
    default:
      return false;
  }
}
const storeCode: FxErrorCode = 'FX_STORE_FAILED';

// @ts-expect-error the workspace permission is one of two words
const badWorkspace: Workspace = { ...workspace, permission: 'always' };
// @ts-expect-error a Turn is not a promise of text
const badTurn: Promise<string> = (null as unknown as Session).prompt('x');
// @ts-expect-error stop reasons are ACP's names, not fx's
const badStop: StopReason = 'max_output_tokens';
// @ts-expect-error env values are primitives
const badEnv: FxAgentOptions = { env: { AI_GATEWAY_API_KEY: { key: 1 } } };
// @ts-expect-error the deadline is a number of milliseconds
const badTimeout: FxAgentOptions = { adapterTimeoutMs: '10s' };
// @ts-expect-error a code fx does not raise
const badCode: FxErrorCode = 'FX_GATEWAY_HTTP';

export { main, signIn, asyncStore, appended, storeCode, badWorkspace, badTurn, badStop, badEnv, badTimeout, badCode };
`;

test('the createFxAgent types check with tsc --noEmit --strict', async () => {
  const project = await mkdtemp(join(tmpdir(), 'fx-agent-types-'));
  try {
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'agent-types', private: true, type: 'module' }));
    await writeFile(join(project, 'use.ts'), USE);
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2022', 'dom', 'dom.asynciterable'],
          strict: true,
          noEmit: true,
          types: [],
        },
        files: ['use.ts'],
      }),
    );
    const tsc = join(root, 'node_modules', '.bin', 'tsc');
    try {
      execFileSync(tsc, ['--noEmit', '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      assert.fail(`tsc reported errors:\n${err.stdout}${err.stderr}`);
    }
  } finally {
    await rm(project, { recursive: true, force: true });
  }
});
