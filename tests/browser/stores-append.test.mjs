// indexedDbSessionStore.append in Chromium, Firefox and WebKit, on real IndexedDB: appends are
// compare-and-set like commit, every 32nd small one merges the small ones before it, load joins them,
// a commit or remove drops them; a missing or damaged chunk loads as FX_STORE_FAILED, never as a
// shorter log; a version 1 database (bytes in the session record) still loads and appends; two
// tabs racing one append: exactly one wins; and an agent on the store hands it only the new
// bytes per turn, which a reload opens again.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { ENGINES, openHarness } from './engines.mjs';

/** Runs `body(fx, arg)` in `page` with the package imported; returns what it returns. */
function inPage(page, body, arg) {
  return page.evaluate(
    `async (arg) => {
      const fx = await import('/pkg/index.js');
      return (${body})(fx, arg);
    }`,
    arg,
  );
}

/** In the page: the raw `chunks` keys of database `name` for session `id` (after the store closed). */
const RAW_CHUNKS = `(name, id) => new Promise((resolve, reject) => {
  const open = indexedDB.open(name);
  open.onsuccess = () => {
    const tx = open.result.transaction('chunks', 'readonly');
    const keys = tx.objectStore('chunks').getAllKeys(IDBKeyRange.bound([id, 0], [id, Infinity]));
    keys.onsuccess = () => { open.result.close(); resolve(keys.result.map((k) => k[1])); };
    keys.onerror = () => reject(keys.error);
  };
  open.onerror = () => reject(open.error);
})`;

for (const engine of ENGINES) {
  describe(`indexedDbSessionStore.append in ${engine}`, () => {
    let browser;
    let second;

    before(async () => {
      browser = await openHarness(engine);
      second = await browser.open();
    });

    after(async () => {
      await browser?.close();
    });

    test('appends under the revision check, small ones merged every 32nd; commit and remove drop them', async () => {
      const out = await inPage(
        browser.page,
        async (fx, raw) => {
          const rawChunks = eval(raw);
          const store = fx.indexedDbSessionStore({ name: 'test.append' });
          const codeOf = (p) => p.then(() => 'resolved', (e) => `${e instanceof Error}:${e.code ?? e.name}`);
          const line = (i) => new TextEncoder().encode(`${String(i).padStart(4, '0')} ${'x'.repeat(1018)}\n`);
          const r = {};
          r.noRecord = await codeOf(store.append('s', line(0), 'r0'));
          r.noRevision = await codeOf(store.append('s', line(0), undefined));
          let { revision } = await store.commit('s', line(0), undefined);
          const first = revision;
          for (let i = 1; i <= 200; i++) ({ revision } = await store.append('s', line(i), revision));
          r.stale = await codeOf(store.append('s', line(999), first));
          // A large append is a chunk of its own.
          const big = new Uint8Array(100 * 1024).fill(65);
          ({ revision } = await store.append('s', big, revision));
          const loaded = await store.load('s');
          r.revisionIsLast = loaded.revision === revision;
          r.length = loaded.bytes.byteLength;
          const text = new TextDecoder().decode(loaded.bytes.subarray(0, 201 * 1024));
          r.inOrder = text.split('\n').slice(0, 201).every((l, i) => l.startsWith(String(i).padStart(4, '0')));
          r.tail = loaded.bytes.subarray(201 * 1024).every((b) => b === 65);
          await store.close();
          r.chunks = (await rawChunks('test.append', 's')).length;
          ({ revision } = await store.commit('s', line(7), revision));
          await store.close();
          r.chunksAfterCommit = await rawChunks('test.append', 's');
          r.afterCommit = new TextDecoder().decode((await store.load('s')).bytes).slice(0, 4);
          await store.append('s', line(8), revision);
          await store.remove('s');
          r.removed = await store.load('s');
          await store.close();
          r.chunksAfterRemove = await rawChunks('test.append', 's');
          return r;
        },
        RAW_CHUNKS,
      );
      assert.equal(out.noRecord, 'true:FX_SESSION_REVISION_CONFLICT');
      assert.equal(out.noRevision, 'true:TypeError');
      assert.equal(out.stale, 'true:FX_SESSION_REVISION_CONFLICT');
      assert.ok(out.revisionIsLast);
      assert.equal(out.length, 201 * 1024 + 100 * 1024);
      assert.ok(out.inOrder, 'every append in order');
      assert.ok(out.tail);
      // The commit's chunk, 6 merges of 32 small appends, the 8 small ones since, the large one.
      assert.equal(out.chunks, 16);
      assert.deepEqual(out.chunksAfterCommit, [0]);
      assert.equal(out.afterCommit, '0007');
      assert.equal(out.removed, null);
      assert.deepEqual(out.chunksAfterRemove, []);
    });

    test('a missing or damaged chunk loads as FX_STORE_FAILED, never as a shorter log', async () => {
      const out = await inPage(browser.page, async (fx) => {
        const store = fx.indexedDbSessionStore({ name: 'test.torn' });
        const enc = (s) => new TextEncoder().encode(s);
        let { revision } = await store.commit('s', enc('a'.repeat(70 * 1024)), undefined);
        ({ revision } = await store.append('s', enc('b'.repeat(70 * 1024)), revision));
        ({ revision } = await store.append('s', enc('c'.repeat(70 * 1024)), revision));
        await store.commit('ok', enc('fine'), undefined);
        await store.close();
        const damage = (change) =>
          new Promise((resolve, reject) => {
            const open = indexedDB.open('test.torn');
            open.onsuccess = () => {
              const tx = open.result.transaction('chunks', 'readwrite');
              change(tx.objectStore('chunks'));
              tx.oncomplete = () => {
                open.result.close();
                resolve();
              };
              tx.onerror = () => reject(tx.error);
            };
            open.onerror = () => reject(open.error);
          });
        const failure = (p) => p.then(() => 'resolved', (e) => ({ code: e.code, message: e.message }));
        await damage((chunks) => chunks.put('not bytes', ['s', 1]));
        const damaged = await failure(store.load('s'));
        await store.close();
        await damage((chunks) => chunks.delete(['s', 1]));
        const missing = await failure(store.load('s'));
        const good = new TextDecoder().decode((await store.load('ok')).bytes);
        return { damaged, missing, good };
      });
      assert.equal(out.damaged.code, 'FX_STORE_FAILED');
      assert.match(out.damaged.message, /session s is damaged \(a chunk is not a Uint8Array\)/);
      assert.equal(out.missing.code, 'FX_STORE_FAILED');
      assert.match(out.missing.message, /2 of 3 chunks are stored/);
      assert.equal(out.good, 'fine');
    });

    test('a version 1 database (bytes in the session record) loads, appends and lists', async () => {
      const out = await inPage(
        browser.page,
        async (fx, raw) => {
          const rawChunks = eval(raw);
          await new Promise((resolve, reject) => {
            const open = indexedDB.open('test.v1', 1);
            open.onupgradeneeded = () => {
              const sessions = open.result.createObjectStore('sessions', { keyPath: 'id' });
              sessions.createIndex('updatedAtMs', 'updatedAtMs');
            };
            open.onsuccess = () => {
              const tx = open.result.transaction('sessions', 'readwrite');
              tx.objectStore('sessions').put({ id: 'old', bytes: new TextEncoder().encode('v1 bytes'), revision: 'v1rev', updatedAtMs: 5 });
              tx.oncomplete = () => {
                open.result.close();
                resolve();
              };
              tx.onerror = () => reject(tx.error);
            };
            open.onerror = () => reject(open.error);
          });
          const store = fx.indexedDbSessionStore({ name: 'test.v1' });
          const dec = (b) => new TextDecoder().decode(b);
          const loaded = await store.load('old');
          const list = await store.list();
          const { revision } = await store.append('old', new TextEncoder().encode(' and more'), loaded.revision);
          const after = await store.load('old');
          await store.close();
          return {
            loaded: dec(loaded.bytes),
            revision: loaded.revision,
            list: list.map((s) => s.id),
            after: dec(after.bytes),
            newRevision: after.revision === revision,
            chunks: await rawChunks('test.v1', 'old'),
          };
        },
        RAW_CHUNKS,
      );
      assert.deepEqual(out, {
        loaded: 'v1 bytes',
        revision: 'v1rev',
        list: ['old'],
        after: 'v1 bytes and more',
        newRevision: true,
        chunks: [0, 1],
      });
    });

    test('two tabs racing one append: exactly one wins, every round', async () => {
      const { revision: start } = await inPage(browser.page, async (fx) =>
        fx.indexedDbSessionStore({ name: 'test.append.race' }).commit('shared', new TextEncoder().encode('base'), undefined),
      );
      let expected = start;
      let text = 'base';
      for (let round = 0; round < 15; round += 1) {
        const attempt = (page, who) =>
          inPage(
            page,
            async (fx, { expectedRevision, who: tab }) => {
              const store = (globalThis.__appendRace ??= fx.indexedDbSessionStore({ name: 'test.append.race' }));
              try {
                return { won: true, ...(await store.append('shared', new TextEncoder().encode(` ${tab}`), expectedRevision)) };
              } catch (err) {
                return { won: false, code: err.code };
              }
            },
            { expectedRevision: expected, who },
          );
        const [a, b] = await Promise.all([attempt(browser.page, `a${round}`), attempt(second, `b${round}`)]);
        const winners = [a, b].filter((r) => r.won);
        assert.equal(winners.length, 1, `round ${round}: ${JSON.stringify([a, b])}`);
        assert.equal((a.won ? b : a).code, 'FX_SESSION_REVISION_CONFLICT');
        text += a.won ? ` a${round}` : ` b${round}`;
        expected = winners[0].revision;
      }
      const stored = await inPage(second, async (fx) => {
        const rec = await fx.indexedDbSessionStore({ name: 'test.append.race' }).load('shared');
        return { text: new TextDecoder().decode(rec.bytes), revision: rec.revision };
      });
      assert.deepEqual(stored, { text, revision: expected });
    });

    test('an agent on the store appends each turn, and a reload resumes the session', async () => {
      const agentPage = (page) =>
        inPage(page, async (fx) => {
          const fetch = async (url, init = {}) => {
            if ((init.method ?? 'GET') === 'GET') {
              const catalog = { object: 'list', data: [{ id: 'moonshotai/kimi-k3', type: 'language' }] };
              return new Response(JSON.stringify(catalog), { status: 200, headers: { 'content-type': 'application/json' } });
            }
            const asked = JSON.parse(new TextDecoder().decode(init.body)).prompt.at(-1).content[0].text;
            const events = [
              { type: 'text-delta', id: 't', delta: `echo: ${asked}` },
              { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: { total: 5 }, outputTokens: { total: 2 } } },
            ];
            const sse = `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
            return new Response(sse, { status: 200, headers: { 'content-type': 'text/event-stream' } });
          };
          const inner = fx.indexedDbSessionStore({ name: 'test.append.agent' });
          const writes = [];
          const sessionStore = {
            load: (id) => inner.load(id),
            list: () => inner.list(),
            remove: (id) => inner.remove(id),
            commit: (id, bytes, rev) => (writes.push(['commit', bytes.byteLength]), inner.commit(id, bytes, rev)),
            append: (id, bytes, rev) => (writes.push(['append', bytes.byteLength]), inner.append(id, bytes, rev)),
          };
          globalThis.__agent = await fx.createFxAgent({ fetch, env: { AI_GATEWAY_API_KEY: 'k' }, sessionStore });
          globalThis.__writes = writes;
          globalThis.__inner = inner;
          return true;
        });
      await agentPage(browser.page);
      const first = await browser.page.evaluate(async () => {
        const session = await globalThis.__agent.createSession();
        const sizes = [];
        for (let i = 1; i <= 12; i++) {
          globalThis.__writes.length = 0;
          await session.prompt(`turn ${i}`).result;
          sizes.push(...globalThis.__writes);
        }
        const stored = (await globalThis.__inner.load(session.id)).bytes.byteLength;
        await globalThis.__agent.close();
        return { id: session.id, sizes, stored };
      });
      // The session is stored with its first turn (a commit: nothing was stored before it);
      // every later turn appends.
      assert.equal(first.sizes[0][0], 'commit', JSON.stringify(first.sizes));
      assert.ok(first.sizes.slice(1).every(([method]) => method === 'append'), JSON.stringify(first.sizes));
      assert.ok(first.sizes.at(-1)[1] <= 2 * first.sizes[1][1], JSON.stringify(first.sizes));
      assert.ok(first.sizes.at(-1)[1] * 5 < first.stored);
      await browser.page.reload();
      await agentPage(browser.page);
      const resumed = await browser.page.evaluate(async (id) => {
        const session = await globalThis.__agent.openSession(id);
        const turns = session.history.length;
        await session.prompt('after the reload').result;
        const again = await globalThis.__agent.openSession(id);
        const last = again.history.at(-1);
        await globalThis.__agent.close();
        return { turns, writes: globalThis.__writes.map(([m]) => m), last: JSON.stringify(last) };
      }, first.id);
      assert.ok(resumed.turns >= 12, JSON.stringify(resumed));
      assert.ok(resumed.writes.includes('append'));
      assert.match(resumed.last, /after the reload|echo/);
    });

    test('the pages logged no errors', async () => {
      assert.deepEqual([...(await browser.page.errors()), ...(await second.errors())], []);
    });
  });
}
