// fxbot's stores on Postgres (issue 23), on PGlite (Postgres in wasm, a devDependency): the
// FxbotStore contract and the session store's (as the memory stores' tests), compare-and-set
// under concurrent writers, the versioned schema, and the server on PGlite persisted to a
// temporary directory keeping bots, chats and the library across a restart.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { PGlite } from '@electric-sql/pglite';

import { createFxbot } from '../../pkg/fxbot/node.js';
import { connectFxbot, turnsFromLines } from '../../pkg/fxbot/client.js';
import { postgresFxbotStore, postgresSessionStore, SCHEMA_VERSION } from '../../pkg/fxbot/postgres.js';
import { createFxbotServer, listen } from '../../pkg/fxbot/server-node.js';
import { fxbotStoreContract } from '../support/fxbot-store-contract.js';
import { CHAT_URL, replyFetch } from '../support/fxbot-follow.mjs';

const bytes = (text) => new TextEncoder().encode(text);
const text = (data) => new TextDecoder().decode(data);

async function rejects(run, code) {
  const error = await Promise.resolve().then(run).then(() => null, (e) => e);
  assert.ok(error instanceof Error, `expected an Error with code ${code}`);
  assert.equal(error.code, code, error.message);
  return error;
}

test('postgresFxbotStore keeps the FxbotStore contract on PGlite', async () => {
  const db = new PGlite();
  const { checks } = await fxbotStoreContract(postgresFxbotStore(db));
  assert.ok(checks > 30);
  // A second prefix is a second store in the same database.
  const other = postgresFxbotStore(db, { prefix: 'other' });
  assert.equal(await other.load('bot/000000000001'), null);
  assert.throws(() => postgresFxbotStore(db, { prefix: 'Bad-Name' }), TypeError);
  assert.throws(() => postgresFxbotStore({}), TypeError);
  await db.close();
});

test('postgresFxbotStore: concurrent read-modify-write writers lose nothing', async () => {
  const db = new PGlite();
  const store = postgresFxbotStore(db);
  await store.commit('counter', bytes('0'), undefined);
  const writer = async () => {
    for (;;) {
      const { bytes: b, revision } = await store.load('counter');
      try {
        await store.commit('counter', bytes(String(Number(text(b)) + 1)), revision);
        return;
      } catch (error) {
        assert.equal(error.code, 'FXBOT_STORE_REVISION_CONFLICT');
      }
    }
  };
  await Promise.all(Array.from({ length: 20 }, writer));
  assert.equal(text((await store.load('counter')).bytes), '20');
  await db.close();
});

test('postgresSessionStore: commit, append as one new chunk, list, remove', async () => {
  const db = new PGlite();
  const store = postgresSessionStore(db);
  assert.equal(await store.load('a'), null);
  const { revision: r1 } = await store.commit('a', bytes('one'), undefined);
  assert.equal(typeof r1, 'string');
  await rejects(() => store.commit('a', bytes('again'), undefined), 'FX_SESSION_REVISION_CONFLICT');
  await rejects(() => store.commit('a', bytes('stale'), 'nope'), 'FX_SESSION_REVISION_CONFLICT');
  await rejects(() => store.append('b', bytes('x'), 'none'), 'FX_SESSION_REVISION_CONFLICT');
  await assert.rejects(() => store.append('a', bytes('x'), undefined), TypeError);
  const data = bytes(' two');
  const { revision: r2 } = await store.append('a', data, r1);
  data[0] = 0;
  assert.notEqual(r2, r1);
  await rejects(() => store.append('a', bytes(' stale'), r1), 'FX_SESSION_REVISION_CONFLICT');
  const { revision: r3 } = await store.append('a', bytes(' three'), r2);
  const loaded = await store.load('a');
  assert.equal(text(loaded.bytes), 'one two three');
  assert.equal(loaded.revision, r3);
  loaded.bytes[0] = 0;
  assert.equal(text((await store.load('a')).bytes), 'one two three', 'bytes are copied out');
  // Each append was one new row; a commit replaces them all.
  const chunks = async () => Number((await db.query('SELECT count(*)::int AS n FROM fxbot_session_chunks WHERE id = $1', ['a'])).rows[0].n);
  assert.equal(await chunks(), 3);
  await store.commit('a', bytes('new'), r3);
  assert.equal(text((await store.load('a')).bytes), 'new');
  assert.equal(await chunks(), 1);
  // Concurrent appends on one revision: exactly one wins.
  const head = (await store.load('a')).revision;
  const results = await Promise.allSettled(['x', 'y', 'z'].map((v) => store.append('a', bytes(v), head)));
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  await new Promise((r) => setTimeout(r, 5));
  await store.commit('newer', bytes('y'), undefined);
  const list = await store.list();
  assert.deepEqual(list.map((s) => s.id), ['newer', 'a']);
  for (const entry of list) {
    assert.deepEqual(Object.keys(entry).sort(), ['id', 'updatedAtMs']);
    assert.ok(Number.isInteger(entry.updatedAtMs));
  }
  await store.remove('a');
  assert.equal(await store.load('a'), null);
  assert.equal(await chunks(), 0);
  assert.deepEqual((await store.list()).map((s) => s.id), ['newer']);
  await db.close();
});

test('the schema is versioned: created on first use, a newer database refused', async () => {
  const db = new PGlite();
  await postgresFxbotStore(db).list('');
  const { rows } = await db.query('SELECT name, version FROM fxbot_schema_version');
  assert.deepEqual(rows, [{ name: 'fxbot', version: SCHEMA_VERSION }]);
  // A store created afresh over a database from a later fx-wasm (another prefix's cache is separate).
  const db2 = new PGlite();
  await db2.query('CREATE TABLE later_schema_version (name text PRIMARY KEY, version integer NOT NULL)');
  await db2.query("INSERT INTO later_schema_version VALUES ('fxbot', 99)");
  const error = await rejects(() => postgresFxbotStore(db2, { prefix: 'later' }).list(''), 'FX_STORE_FAILED');
  assert.match(error.message, /schema version 99, newer than this fx-wasm knows/);
  await db.close();
  await db2.close();
});

/** The server on PGlite in `dir`, with the reply fetch as its model; a client connected to it. */
async function serverOn(dir) {
  const db = new PGlite(dir);
  const replies = replyFetch();
  const fxbot = await createFxbot({
    store: postgresFxbotStore(db),
    sessionStore: postgresSessionStore(db),
    fetch: replies.fetch,
    env: { FX_GATEWAY_CHAT_URL: CHAT_URL },
    owner: 'server-1',
  });
  const served = await listen(createFxbotServer(fxbot, { authorize: (r) => r.headers.get('authorization') === 'Bearer t' }));
  const client = await connectFxbot({ url: served.url, headers: { authorization: 'Bearer t' } });
  return {
    client,
    replies,
    async close() {
      await client.close();
      await fxbot.close();
      await served.close();
      await db.close();
    },
  };
}

test('the server on PGlite in a directory keeps bots, chats and the library across a restart', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fxbot-pglite-'));
  try {
    const first = await serverOn(dir);
    const { client } = first;
    const provider = await client.providers.add({ kind: 'gateway', apiKey: 'pglite-key', model: 'test/model' });
    await client.settings.update({ defaultProvider: provider.id });
    const bot = await client.bots.create({ name: 'Keeper', instructions: 'Remember.' });
    first.replies.queue(5);
    const sent = await client.chat.send(bot.id, {
      text: 'keep this',
      messageId: 'k1',
      files: [{ name: 'note.txt', type: 'text/plain', data: Buffer.from('kept note').toString('base64') }],
    });
    const lines = [];
    for await (const line of client.chat.stream(bot.id, 0)) {
      lines.push(line);
      if (line.type === 'turn_end') break;
    }
    const item = await client.library.add({ name: 'extra.md', type: 'text/markdown', data: Buffer.from('# extra').toString('base64') }, { tags: ['keep'] });
    const turns = await client.chat.turns(bot.id);
    const items = await client.library.list();
    assert.equal(items.length, 2);
    await first.close();

    const second = await serverOn(dir);
    const again = second.client;
    const bots = await again.bots.list();
    assert.deepEqual(bots.map((b) => [b.id, b.name, b.instructions, b.sessionId]), [[bot.id, 'Keeper', 'Remember.', sent.sessionId]]);
    assert.deepEqual(await again.chat.turns(bot.id), turns);
    assert.equal(turns[0].status, 'done');
    const replay = [];
    for await (const line of again.chat.stream(bot.id, 0, { follow: false })) replay.push(line);
    // (A replay from the store gives the reply as one text line: the same turns.)
    assert.deepEqual(turnsFromLines(replay), turnsFromLines(lines));
    assert.deepEqual((await again.library.list()).map((i) => i.id).sort(), items.map((i) => i.id).sort());
    assert.equal(text((await again.library.read(item.id)).bytes), '# extra');
    assert.deepEqual((await again.library.get(item.id)).tags, ['keep']);
    const settings = await again.settings.get();
    assert.equal(settings.defaultProvider, provider.id);
    // The chat goes on after the restart.
    const next = await again.chat.send(bot.id, { text: 'still there?', messageId: 'k2' });
    assert.equal(next.turn, 2);
    for await (const line of again.chat.stream(bot.id, next.cursor)) if (line.type === 'turn_end') break;
    assert.equal((await again.chat.turns(bot.id)).length, 2);
    await second.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
