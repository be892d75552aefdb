// The declarations of js/fxbot/client.d.ts, js/fxbot/stores.d.ts and js/fxbot/index.d.ts, checked by
// `tsc --noEmit --strict` on code that uses every type and function, plus lines that must not
// type-check.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const client = join(root, 'js', 'fxbot', 'client.js');
const stores = join(root, 'js', 'fxbot', 'stores.js');
const entry = join(root, 'js', 'fxbot', 'index.js');
const server = join(root, 'js', 'fxbot', 'server.js');
const postgres = join(root, 'js', 'fxbot', 'postgres.js');

const USE = `
import { reduceLines, turnsFromLines } from ${JSON.stringify(client)};
import type { Part, StopReason, StreamLine, Turn, Upload, Usage } from ${JSON.stringify(client)};
import { indexedDbFxbotStore, memoryFxbotStore } from ${JSON.stringify(stores)};
import type { FxbotStore, IndexedDbFxbotStore, IndexedDbFxbotStoreOptions, MemoryFxbotStore } from ${JSON.stringify(stores)};

const lines: StreamLine[] = [
  { type: 'turn_start', cursor: 2097153, sessionId: 's', turn: 1, messageId: 'm1', at: '', prompt: 'hi',
    input: 'hi', files: [{ name: 'a.txt', type: 'text/plain', url: '/api/library/0123456789ab/file' }], skills: [] },
  { type: 'text', cursor: 2097154, turn: 1, text: 'Hel' },
  { type: 'reasoning', cursor: 2097155, turn: 1, text: 'hm' },
  { type: 'tool_call', cursor: 2097156, turn: 1, toolCallId: 'c', name: 'library_read', title: 'library_read',
    arguments: { id: 'x' }, status: 'in_progress' },
  { type: 'tool_result', cursor: 2097157, turn: 1, toolCallId: 'c', status: 'completed', output: 'x', truncated: false },
  { type: 'turn_end', cursor: 4194303, turn: 1, stopReason: 'max_tokens', usage: { inputTokens: 1, outputTokens: 2 },
    error: { status: 502, code: 'FXBOT_PROVIDER_FAILED', message: 'no' } },
  { type: 'chat_end', cursor: 4194304, reason: 'handoff', nextSessionId: 's2' },
];

function describe(part: Part): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text;
    case 'tool':
      return part.name + ' ' + part.status + ' ' + (part.output ?? '');
  }
}

const turns: Turn[] = turnsFromLines(lines);
const next: Turn[] = reduceLines(turns, lines[1]);
const usage: Usage | null = next[0].usage;
const reason: StopReason = 'refusal';
const files: Upload[] = next[0].files;
const summary: string[] = turns.flatMap((t) => t.parts.map(describe)).concat([t0(turns), reason, String(usage?.inputTokens), files[0]?.url ?? '']);
function t0(ts: readonly Turn[]): string {
  const t = ts[0];
  return t.status === 'running' ? 'running' : t.error ? t.error.code + t.error.message + t.error.status : t.input;
}

async function roundTrip(store: FxbotStore): Promise<string[]> {
  const { revision } = await store.commit('bot/0123456789ab', new Uint8Array([1]), undefined);
  await store.commit('bot/0123456789ab', new Uint8Array([2]), revision);
  const loaded = await store.load('bot/0123456789ab');
  const listed = await store.list('bot/');
  await store.remove('bot/0123456789ab', loaded?.revision);
  return listed.map((e) => e.key + e.revision);
}

const memory: MemoryFxbotStore = memoryFxbotStore();
const asStore: FxbotStore = memory;
const syncRevision: string = memory.commit('k', new Uint8Array(), undefined).revision;
const removed: boolean = memory.remove('k');
const options: IndexedDbFxbotStoreOptions = { name: 'fxbot' };
const idb: IndexedDbFxbotStore = indexedDbFxbotStore(options);
const idbStore: Promise<string[]> = roundTrip(idb).then(() => roundTrip(asStore));
const closing: Promise<void> = idb.close();

// @ts-expect-error a line needs its type
reduceLines(turns, { cursor: 1, turn: 1, text: 'x' });
// @ts-expect-error tool_call statuses are pending or in_progress
const bad: StreamLine = { type: 'tool_call', cursor: 1, turn: 1, toolCallId: 'c', name: '', title: '', arguments: null, status: 'completed' };
// @ts-expect-error commit takes bytes
memory.commit('k', 'text', undefined);

export { summary, roundTrip, syncRevision, removed, closing, bad, idbStore };

import { createFxbot, isBotId, MAX_PINNED, FxbotErrorCodes } from ${JSON.stringify(entry)};
import type { EmbeddingStatus, LocalEmbedder, Memory, MemoryHit, Addon, AddonPatch, AddonRef, Fxbot, FxbotError, FxbotOptions, LibraryItem, McpServer, McpTool, NewServer, NewSkill, Profile, Provider, Sent, SignIn, Skill } from ${JSON.stringify(entry)};

async function useFxbot(options: FxbotOptions): Promise<string[]> {
  const fxbot: Fxbot = await createFxbot(options);
  const bot: Profile = await fxbot.bots.create({ name: 'Ada', shape: 'star', color: 'teal' });
  await fxbot.bots.update(bot.id, { pinned: true, provider: '' });
  const provider: Provider = await fxbot.providers.add({ kind: 'gateway', apiKey: 'k', model: 'm' });
  await fxbot.settings.update({ defaultProvider: provider.id });
  const sent: Sent = await fxbot.chat.send(bot.id, { text: 'hi', messageId: 'm1', files: [{ name: 'a.txt', type: 'text/plain', data: 'aGk=' }] });
  const out: string[] = [sent.sessionId, String(MAX_PINNED), String(isBotId(bot.id)), FxbotErrorCodes[0]];
  for await (const line of fxbot.chat.stream(bot.id, sent.cursor, { follow: false })) out.push(line.type);
  const items: LibraryItem[] = await fxbot.library.list({ botId: bot.id });
  const { bytes } = await fxbot.library.read(items[0].id);
  const signIn: SignIn = await fxbot.signIns.start('vercel');
  out.push(String(bytes.length), signIn.userCode, fxbot.providers.kinds[0].label);
  try {
    await fxbot.bots.get('x');
  } catch (error) {
    const e = error as FxbotError;
    out.push(e.code, String(e.status));
  }
  const status: EmbeddingStatus = await fxbot.settings.embedding();
  out.push(status.model ?? 'off', String(status.memoriesWithVectors));
  const memory: Memory = await fxbot.memories.add(bot.id, 'Likes tea.');
  const hits: MemoryHit[] = await fxbot.memories.search(bot.id, 'tea', { limit: 3 });
  await fxbot.memories.update(bot.id, "mem:" + memory.id, "Likes green tea.");
  out.push(String(hits[0]?.score), (await fxbot.memories.list(bot.id))[0].savedBy);
  await fxbot.memories.remove(bot.id, memory.id);
  const skill: Skill = await fxbot.addons.addSkill({ markdown: '---\\nname: review\\ndescription: d\\n---\\nx' } satisfies NewSkill);
  const fromUrl: Skill = await fxbot.addons.addSkill({ url: 'https://skills.example/SKILL.md' });
  const newServer: NewServer = { url: 'https://mcp.example/mcp', name: 'issues', headers: { 'X-Api-Key': 'k' } };
  const server: McpServer = await fxbot.addons.addServer(newServer);
  const tool: McpTool | undefined = server.tools[0];
  const patch: AddonPatch = { allowed: server.allowed, bots: [bot.id], headers: { 'X-Api-Key': 'k2' } };
  const ref: AddonRef = server.ref;
  const updated: Addon = await fxbot.addons.update(ref, patch);
  const all: Addon[] = await fxbot.addons.list();
  for (const addon of all) out.push(addon.kind === 'server' ? addon.url : addon.instructions);
  out.push(skill.name, fromUrl.sourceUrl ?? '', tool?.title ?? '', updated.ref, (await fxbot.addons.get('skill:review')).kind);
  await fxbot.addons.refresh(ref);
  const { url: signInUrl } = await fxbot.addons.oauth(ref, { origin: 'http://127.0.0.1:8787' });
  const signedIn: McpServer = await fxbot.addons.completeOAuth(signInUrl);
  out.push(String(signedIn.signedIn));
  await fxbot.addons.remove('skill:review');
  // @ts-expect-error a reference names its kind
  await fxbot.addons.get('review');
  await fxbot.providers.add({ kind: 'openai', apiKey: 'k' });
  const local = await fxbot.providers.add({ kind: 'ollama', contextWindow: 4096 });
  const models: { id: string; contextWindow: number | null }[] = await fxbot.providers.models(local.id, { refresh: true });
  out.push(String(models.length), (await fxbot.providers.update(local.id, { baseUrl: 'http://127.0.0.1:11434' })).kind);
  // @ts-expect-error a kind that signs in is not added with a key
  await fxbot.providers.add({ kind: 'chatgpt', apiKey: 'k' });
  await fxbot.release(bot.id);
  await fxbot.close();
  return out;
}
const fxbotUse: Promise<string[]> = useFxbot({ store: memoryFxbotStore(), embedder: { model: 'm', embed: async (texts: string[]) => texts.map(() => new Float32Array(4)) } satisfies LocalEmbedder, oauthRedirectPath: '/oauth/callback', env: { FX_GATEWAY_CHAT_URL: 'http://127.0.0.1:1/v3/ai/language-model' } });
export { fxbotUse };

import { connectFxbot } from ${JSON.stringify(client)};
import type { ConnectFxbotOptions, FxbotHttpErrorCode } from ${JSON.stringify(client)};
import { createFxbotServer, DEFAULT_MAX_BODY_BYTES, listen } from ${JSON.stringify(server)};
import type { FxbotHandler, FxbotServerOptions, Listening } from ${JSON.stringify(server)};
import { postgresFxbotStore, postgresSessionStore, SCHEMA_VERSION } from ${JSON.stringify(postgres)};
import type { PostgresQueryable } from ${JSON.stringify(postgres)};

async function useServer(db: PostgresQueryable): Promise<string> {
  const inner: Fxbot = await createFxbot({ store: postgresFxbotStore(db), sessionStore: postgresSessionStore(db, { prefix: 'fxbot' }) });
  const serverOptions: FxbotServerOptions = { authorize: (r: Request) => r.headers.get('authorization') === 'Bearer t', heartbeatMs: 1000, maxBodyBytes: DEFAULT_MAX_BODY_BYTES };
  const handler: FxbotHandler = createFxbotServer(inner, serverOptions);
  const served: Listening = await listen(handler, { port: 0 });
  const connect: ConnectFxbotOptions = { url: served.url, headers: () => ({ authorization: 'Bearer t' }) };
  const remote: Fxbot = await connectFxbot(connect);
  const code: FxbotHttpErrorCode = 'HTTP_UNAUTHORIZED';
  // @ts-expect-error authorize is required
  createFxbotServer(inner, {});
  const bots = await remote.bots.list();
  await remote.close();
  await served.close();
  return code + bots.length + SCHEMA_VERSION;
}
export { useServer };
`;

test('the fxbot client and store declarations type-check', async () => {
  const project = await mkdtemp(join(tmpdir(), 'fxbot-types-'));
  try {
    await writeFile(join(project, 'use.ts'), USE);
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2022', 'dom'],
          strict: true,
          noEmit: true,
          types: [],
        },
        files: ['use.ts'],
      }),
    );
    await writeFile(join(project, 'package.json'), JSON.stringify({ type: 'module' }));
    try {
      execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['--noEmit', '-p', 'tsconfig.json'], {
        cwd: project,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      assert.fail(`tsc reported errors:\n${err.stdout}${err.stderr}`);
    }
  } finally {
    await rm(project, { recursive: true, force: true });
  }
});
