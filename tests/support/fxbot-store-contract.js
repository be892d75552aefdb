// The FxbotStore contract (fxbot DESIGN §5.1) as one suite that runs against any store: in Node
// (tests/node/fxbot-stores.test.mjs, the memory store) and in each browser
// (tests/browser/fxbot-stores.test.mjs imports this file into the page, the IndexedDB store).
// Plain JS, no node:assert, so it runs in a page too; it throws on the first broken rule.
//
//   const report = await fxbotStoreContract(store);   // → { checks: number }

const CONFLICT = 'FXBOT_STORE_REVISION_CONFLICT';

export async function fxbotStoreContract(store) {
  let checks = 0;
  const check = (ok, what) => {
    checks += 1;
    if (!ok) throw new Error(`store contract: ${what}`);
  };
  const enc = (s) => new TextEncoder().encode(s);
  const dec = (b) => new TextDecoder().decode(b);
  const outcome = async (run) => {
    try {
      return { value: await run() };
    } catch (error) {
      return { error };
    }
  };
  const isConflict = (o) => o.error instanceof Error && o.error.code === CONFLICT;

  // load, commit (must not exist), copies
  check((await store.load('bot/000000000001')) === null, 'a missing key loads as null');
  const source = enc('xx{"schema":1}xx');
  const view = source.subarray(2, 14);
  const first = await store.commit('bot/000000000001', view, undefined);
  check(typeof first?.revision === 'string' && first.revision.length > 0, 'commit gives a string revision');
  source[3] = 0;
  const loaded = await store.load('bot/000000000001');
  check(dec(loaded.bytes) === '{"schema":1}', 'the committed bytes load back, unchanged by later writes to the source');
  check(loaded.bytes instanceof Uint8Array, 'load gives a Uint8Array');
  check(loaded.bytes.buffer.byteLength === 12, 'only the view was stored, not its whole buffer');
  check(loaded.revision === first.revision, 'load gives the committed revision');
  loaded.bytes[0] = 0;
  check(dec((await store.load('bot/000000000001')).bytes) === '{"schema":1}', 'changing loaded bytes changes nothing stored');

  // compare-and-set
  const again = await outcome(() => store.commit('bot/000000000001', enc('x'), undefined));
  check(isConflict(again), 'a second commit expecting no record is a revision conflict');
  check(again.error.message.includes('bot/000000000001'), 'the conflict names the key');
  const stale = await outcome(() => store.commit('bot/000000000001', enc('x'), 'not-a-revision'));
  check(isConflict(stale), 'a commit with a wrong revision is a conflict');
  const second = await store.commit('bot/000000000001', enc('two'), first.revision);
  check(second.revision !== first.revision, 'each commit gives a new revision');
  check(isConflict(await outcome(() => store.commit('bot/000000000001', enc('x'), first.revision))), 'an old revision is a conflict');
  check(dec((await store.load('bot/000000000001')).bytes) === 'two', 'conflicts write nothing');
  const viaNull = await outcome(() => store.commit('chat/000000000001', enc('n'), null));
  check(typeof viaNull.value?.revision === 'string', 'a null expectedRevision means "must not exist"');
  const empty = await store.commit('blob/000000000009', new Uint8Array(0), undefined);
  check(typeof empty.revision === 'string', 'empty bytes are a value');
  check((await store.load('blob/000000000009')).bytes.length === 0, 'empty bytes load back');

  // list by prefix, sorted by key
  const keys = ['bot/000000000003', 'bot/000000000002', 'bot0', 'bo', 'bot/é', 'bot/\uffff\uffffz', 'botx/1'];
  const revisions = new Map([['bot/000000000001', second.revision]]);
  for (const key of keys) revisions.set(key, (await store.commit(key, enc(key), undefined)).revision);
  const bots = await store.list('bot/');
  const expectedBots = [...revisions.keys()].filter((k) => k.startsWith('bot/')).sort();
  check(JSON.stringify(bots.map((e) => e.key)) === JSON.stringify(expectedBots), `list('bot/') is the bot/ keys sorted: ${JSON.stringify(bots)}`);
  check(bots.every((e) => e.revision === revisions.get(e.key) && Object.keys(e).sort().join() === 'key,revision'), 'list gives { key, revision }');
  const all = (await store.list('')).map((e) => e.key);
  check(JSON.stringify(all) === JSON.stringify([...all].sort()) && all.length === revisions.size + 2, 'list("") is every key, sorted');
  check((await store.list('zzz')).length === 0, 'a prefix nothing has lists nothing');
  check((await store.list('bot/\uffff')).length === 1, 'a prefix with a high code unit');

  // remove
  check((await store.remove('never/there')) === false, 'removing a missing key resolves false');
  check(isConflict(await outcome(() => store.remove('never/there', 'r'))), 'removing a missing key at a revision is a conflict');
  check(isConflict(await outcome(() => store.remove('bot0', 'wrong'))), 'removing at a wrong revision is a conflict');
  check((await store.load('bot0')) !== null, 'a refused remove keeps the record');
  check((await store.remove('bot0', revisions.get('bot0'))) === true, 'removing at the right revision');
  check((await store.remove('bo')) === true, 'removing without a revision');
  check((await store.load('bo')) === null && (await store.load('bot0')) === null, 'removed keys load as null');
  const recreated = await store.commit('bo', enc('new'), undefined);
  check(typeof recreated.revision === 'string', 'a removed key can be created again');

  // arguments
  const typeError = async (run) => (await outcome(run)).error instanceof TypeError;
  check(await typeError(() => store.load('')), 'an empty key is a TypeError');
  check(await typeError(() => store.load(7)), 'a non-string key is a TypeError');
  check(await typeError(() => store.load('k'.repeat(1025))), 'a key over 1024 characters is a TypeError');
  check(await typeError(() => store.commit('k', 'text', undefined)), 'bytes must be a Uint8Array');
  check(await typeError(() => store.commit('k', enc('x'), 5)), 'a non-string revision is a TypeError');
  check(await typeError(() => store.list(undefined)), 'list needs a string prefix');
  check(await typeError(() => store.remove('')), 'remove checks its key');
  check((await store.load('k')) === null, 'a refused commit wrote nothing');
  return { checks };
}
