// The browser-backed stores in Chromium, Firefox and WebKit, on real IndexedDB and
// localStorage: the session and OAuth compare-and-set (including two tabs racing one commit:
// exactly one wins), newest-first listing, copies of the bytes, persistence across a reload, and
// the localStorage stores.

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

for (const engine of ENGINES) {
  describe(`the browser stores in ${engine}`, () => {
    let browser;
    let second;

    before(async () => {
      browser = await openHarness(engine);
      second = await browser.open();
    });

    after(async () => {
      await browser?.close();
    });

    describe('indexedDbSessionStore', () => {
      test('load, compare-and-set commit, conflicts, copies, list, remove', async () => {
        const result = await inPage(browser.page, async (fx) => {
          const out = {};
          const enc = (s) => new TextEncoder().encode(s);
          const dec = (b) => new TextDecoder().decode(b);
          const codeOf = (p) => p.then(() => 'resolved', (e) => `${e instanceof Error}:${e.code}`);
          const store = fx.indexedDbSessionStore({ name: 'test.basic' });
          out.missing = await store.load('a');
          const big = enc('xxhello worldxx');
          const { revision: r1 } = await store.commit('a', big.subarray(2, 13), undefined);
          big[5] = 0;
          const loaded = await store.load('a');
          out.loaded = dec(loaded.bytes);
          out.loadedIsBytes = loaded.bytes instanceof Uint8Array;
          out.storedLength = loaded.bytes.buffer.byteLength;
          out.revisionOk = loaded.revision === r1 && typeof r1 === 'string' && r1.length <= 1024;
          out.firstAgain = await codeOf(store.commit('a', enc('x'), undefined));
          out.stale = await codeOf(store.commit('a', enc('x'), 'not-a-revision'));
          const { revision: r2 } = await store.commit('a', enc('second'), r1);
          out.distinct = r2 !== r1;
          out.oldAgain = await codeOf(store.commit('a', enc('x'), r1));
          out.afterConflicts = dec((await store.load('a')).bytes);
          const err = await store.commit('a', enc('x'), r1).catch((e) => e);
          out.errorName = err.name;
          out.errorMessage = err.message;
          out.badId = await store.load('').then(() => 'resolved', (e) => e.name);
          out.badBytes = await store.commit('b', 'text', undefined).then(() => 'resolved', (e) => e.name);
          await store.remove('a');
          out.removed = await store.load('a');
          await store.remove('never-there');
          return out;
        });
        assert.equal(result.missing, null);
        assert.equal(result.loaded, 'hello world');
        assert.ok(result.loadedIsBytes);
        assert.equal(result.storedLength, 11, 'only the view was stored, not its whole buffer');
        assert.ok(result.revisionOk);
        assert.equal(result.firstAgain, 'true:FX_SESSION_REVISION_CONFLICT');
        assert.equal(result.stale, 'true:FX_SESSION_REVISION_CONFLICT');
        assert.ok(result.distinct);
        assert.equal(result.oldAgain, 'true:FX_SESSION_REVISION_CONFLICT');
        assert.equal(result.afterConflicts, 'second');
        assert.equal(result.errorName, 'FxStoreError');
        assert.match(result.errorMessage, /session a is at revision/);
        assert.equal(result.badId, 'TypeError');
        assert.equal(result.badBytes, 'TypeError');
        assert.equal(result.removed, null);
      });

      test('list() is newest first, ids and integer updatedAtMs only', async () => {
        const list = await inPage(browser.page, async (fx) => {
          const store = fx.indexedDbSessionStore({ name: 'test.list' });
          const enc = (s) => new TextEncoder().encode(s);
          const wait = () => new Promise((r) => setTimeout(r, 3));
          const revs = {};
          for (const id of ['first', 'second', 'third']) {
            revs[id] = (await store.commit(id, enc(id), undefined)).revision;
            await wait();
          }
          await store.commit('first', enc('touched'), revs.first);
          return store.list();
        });
        assert.deepEqual(list.map((s) => s.id), ['first', 'third', 'second']);
        for (const entry of list) {
          assert.deepEqual(Object.keys(entry).sort(), ['id', 'updatedAtMs']);
          assert.ok(Number.isInteger(entry.updatedAtMs));
        }
        assert.ok(list[0].updatedAtMs >= list[1].updatedAtMs && list[1].updatedAtMs >= list[2].updatedAtMs);
      });

      test('two tabs racing one commit: exactly one wins, every round', async () => {
        const rounds = 25;
        const { revision: start } = await inPage(browser.page, async (fx) => {
          const store = fx.indexedDbSessionStore({ name: 'test.race' });
          return store.commit('shared', new TextEncoder().encode('base'), undefined);
        });
        let expected = start;
        for (let round = 0; round < rounds; round += 1) {
          const attempt = (page, who) =>
            inPage(
              page,
              async (fx, { expectedRevision, who: tab }) => {
                const store = (globalThis.__raceStore ??= fx.indexedDbSessionStore({ name: 'test.race' }));
                try {
                  const { revision } = await store.commit('shared', new TextEncoder().encode(tab), expectedRevision);
                  return { won: true, revision };
                } catch (err) {
                  return { won: false, code: err.code };
                }
              },
              { expectedRevision: expected, who },
            );
          const [a, b] = await Promise.all([attempt(browser.page, `a${round}`), attempt(second, `b${round}`)]);
          const winners = [a, b].filter((r) => r.won);
          assert.equal(winners.length, 1, `round ${round}: exactly one tab wins (${JSON.stringify([a, b])})`);
          const loser = a.won ? b : a;
          assert.equal(loser.code, 'FX_SESSION_REVISION_CONFLICT');
          const stored = await inPage(second, async (fx) => {
            const rec = await fx.indexedDbSessionStore({ name: 'test.race' }).load('shared');
            return { text: new TextDecoder().decode(rec.bytes), revision: rec.revision };
          });
          assert.equal(stored.revision, winners[0].revision, 'the stored record is the winner’s');
          assert.equal(stored.text, a.won ? `a${round}` : `b${round}`);
          expected = winners[0].revision;
        }
      });

      test('records survive a reload; separate names are separate databases', async () => {
        await inPage(browser.page, async (fx) => {
          const enc = (s) => new TextEncoder().encode(s);
          await fx.indexedDbSessionStore({ name: 'test.persist.one' }).commit('s', enc('kept'), undefined);
        });
        await browser.page.reload();
        const out = await inPage(browser.page, async (fx) => {
          const one = await fx.indexedDbSessionStore({ name: 'test.persist.one' }).load('s');
          const two = await fx.indexedDbSessionStore({ name: 'test.persist.two' }).load('s');
          return { one: one && new TextDecoder().decode(one.bytes), two };
        });
        assert.deepEqual(out, { one: 'kept', two: null });
      });

      test('a database deleted by another tab is re-opened, not a dead connection', async () => {
        const out = await inPage(browser.page, async (fx) => {
          const store = fx.indexedDbSessionStore({ name: 'test.deleted' });
          const enc = (s) => new TextEncoder().encode(s);
          await store.commit('s', enc('x'), undefined);
          await new Promise((resolve, reject) => {
            const req = indexedDB.deleteDatabase('test.deleted');
            req.onsuccess = resolve;
            req.onerror = () => reject(req.error);
          });
          const after = await store.load('s');
          await store.commit('s', enc('y'), undefined);
          return { after, now: new TextDecoder().decode((await store.load('s')).bytes) };
        });
        assert.deepEqual(out, { after: null, now: 'y' });
      });

      test('a damaged record loads as a store failure, not as bad bytes', async () => {
        const out = await inPage(browser.page, async (fx) => {
          const store = fx.indexedDbSessionStore({ name: 'test.damaged' });
          await store.commit('ok', new Uint8Array([1]), undefined);
          await store.close();
          await new Promise((resolve, reject) => {
            const open = indexedDB.open('test.damaged');
            open.onsuccess = () => {
              const tx = open.result.transaction('sessions', 'readwrite');
              tx.objectStore('sessions').put({ id: 'bad', bytes: 'not bytes', revision: 7, updatedAtMs: 1 });
              tx.oncomplete = () => {
                open.result.close();
                resolve();
              };
              tx.onerror = () => reject(tx.error);
            };
            open.onerror = () => reject(open.error);
          });
          const bad = await store.load('bad').then(() => 'resolved', (e) => e.code);
          const good = (await store.load('ok')).bytes[0];
          return { bad, good };
        });
        assert.deepEqual(out, { bad: 'FX_STORE_FAILED', good: 1 });
      });

      test('an injected factory without open gives FX_STORE_UNAVAILABLE', async () => {
        const code = await inPage(browser.page, async (fx) => {
          try {
            fx.indexedDbSessionStore({ name: 'x', indexedDB: null });
            return 'created';
          } catch (err) {
            return err.code;
          }
        });
        assert.equal(code, 'FX_STORE_UNAVAILABLE');
      });
    });

    describe('indexedDbOAuthSessionStore', () => {
      test('one revisioned record: commit, conflicts, remove, missing', async () => {
        const out = await inPage(browser.page, async (fx) => {
          const r = {};
          const codeOf = (p) => p.then((v) => `ok:${v}`, (e) => `err:${e.code}`);
          const store = fx.indexedDbOAuthSessionStore({ name: 'test.oauth' });
          const secret = new Uint8Array([0, 255, 1, 254, 7]);
          r.empty = await store.load();
          r.removeEmpty = await store.remove(undefined);
          const { revision: r1 } = await store.commit(secret, undefined);
          secret[0] = 9;
          const loaded = await store.load();
          r.bytes = [...loaded.bytes];
          r.revisionMatches = loaded.revision === r1;
          r.firstAgain = await codeOf(store.commit(new Uint8Array([1]), undefined));
          const { revision: r2 } = await store.commit(new Uint8Array([2]), r1);
          r.staleRemove = await codeOf(store.remove(r1));
          r.staleCommit = await codeOf(store.commit(new Uint8Array([3]), r1));
          const conflict = await store.commit(new Uint8Array([3]), r1).catch((e) => e);
          // Only the two revisions, nothing of the bytes.
          r.messageHasNoBytes = /^oauth session is at revision [\w.]+, not [\w.]+$/.test(conflict.message);
          r.remove = await store.remove(r2);
          r.afterRemove = await store.load();
          r.removeAgain = await store.remove(r2);
          // Removing with no expected revision removes whatever is there.
          await store.commit(new Uint8Array([4]), undefined);
          r.removeAny = await store.remove(undefined);
          return r;
        });
        assert.equal(out.empty, null);
        assert.equal(out.removeEmpty, 'missing');
        assert.deepEqual(out.bytes, [0, 255, 1, 254, 7]);
        assert.ok(out.revisionMatches);
        assert.equal(out.firstAgain, 'err:FX_OAUTH_SESSION_REVISION_CONFLICT');
        assert.equal(out.staleRemove, 'err:FX_OAUTH_SESSION_REVISION_CONFLICT');
        assert.equal(out.staleCommit, 'err:FX_OAUTH_SESSION_REVISION_CONFLICT');
        assert.ok(out.messageHasNoBytes);
        assert.equal(out.remove, true);
        assert.equal(out.afterRemove, null);
        assert.equal(out.removeAgain, 'missing');
        assert.equal(out.removeAny, true);
      });

      test('two tabs racing one refresh: exactly one wins', async () => {
        const { revision } = await inPage(browser.page, (fx) =>
          fx.indexedDbOAuthSessionStore({ name: 'test.oauth.race' }).commit(new Uint8Array([1]), undefined),
        );
        const attempt = (page, value) =>
          inPage(
            page,
            (fx, { rev, value: v }) =>
              fx
                .indexedDbOAuthSessionStore({ name: 'test.oauth.race' })
                .commit(new Uint8Array([v]), rev)
                .then(() => 'won', (e) => e.code),
            { rev: revision, value },
          );
        const results = await Promise.all([attempt(browser.page, 2), attempt(second, 3)]);
        assert.deepEqual([...results].sort(), ['FX_OAUTH_SESSION_REVISION_CONFLICT', 'won']);
      });
    });

    describe('localStorage stores', () => {
      test('config under fx.core.config.<id>; history under fx.term.history.<root>', async () => {
        const out = await inPage(browser.page, async (fx) => {
          localStorage.clear();
          const config = fx.localStorageConfigStore();
          const r = { unset: config.get('model') };
          config.set('model', 'anthropic/claude-sonnet-4.5');
          r.rawConfig = localStorage.getItem('fx.core.config.model');
          const history = fx.localStoragePromptHistoryStore({ maxEntries: 3 });
          r.outcomes = [];
          for (const p of ['one', 'two', 'two', 'three', 'four']) r.outcomes.push(history.append('/workspace', p, Date.now()) ?? 'appended');
          r.loaded = history.load('/workspace', 100);
          r.rawHistory = JSON.parse(localStorage.getItem('fx.term.history./workspace'));
          r.tooLarge = history.append('/workspace', 'x'.repeat(256 * 1024 + 1), 0);
          localStorage.setItem('fx.term.history./broken', '{oops');
          r.broken = history.load('/broken', 10);
          history.clear('/workspace');
          r.cleared = localStorage.getItem('fx.term.history./workspace');
          return r;
        });
        assert.equal(out.unset, null);
        assert.equal(out.rawConfig, 'anthropic/claude-sonnet-4.5');
        assert.deepEqual(out.outcomes, ['appended', 'appended', 'duplicate', 'appended', 'appended']);
        assert.deepEqual(out.loaded, ['two', 'three', 'four']);
        assert.deepEqual(out.rawHistory, ['two', 'three', 'four']);
        assert.equal(out.tooLarge, 'record_too_large');
        assert.deepEqual(out.broken, []);
        assert.equal(out.cleared, null);
      });

      test('a second tab sees the first tab’s config and history', async () => {
        await inPage(browser.page, (fx) => {
          fx.localStorageConfigStore().set('mode', 'ask');
          fx.localStoragePromptHistoryStore().append('/shared', 'from tab one', 1);
        });
        const out = await inPage(second, (fx) => ({
          mode: fx.localStorageConfigStore().get('mode'),
          history: fx.localStoragePromptHistoryStore().load('/shared', 10),
        }));
        assert.deepEqual(out, { mode: 'ask', history: ['from tab one'] });
      });
    });

    test('the pages logged no errors', async () => {
      assert.deepEqual([...(await browser.page.errors()), ...(await second.errors())], []);
    });
  });
}
