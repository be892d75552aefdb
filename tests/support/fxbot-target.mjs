// The target the public-API bots suites run against (issue 23): `createFxbot(options)` of
// fx-wasm/fxbot in this process (the default), or, with FXBOT_TARGET=server, the same fxbot
// behind createFxbotServer on a loopback port and reached through connectFxbot. The options
// (stores, fetch, env) go to the fxbot behind the server, so a suite's fakes still see every
// model request; `close()` of the returned object also closes the server and that fxbot.

import { memorySessionStore as memorySessions } from '../../pkg/node.js';
import { createFxbot as createLocal, memoryFxbotStore as memoryDocs } from '../../pkg/fxbot/node.js';
import { postgresFxbotStore, postgresSessionStore } from '../../pkg/fxbot/postgres.js';
import { connectFxbot } from '../../pkg/fxbot/client.js';
import { createFxbotServer, listen } from '../../pkg/fxbot/server-node.js';

export const TARGET = process.env.FXBOT_TARGET === 'server' ? 'server' : 'local';
/** The stores the suites make: memory (the default), or with FXBOT_STORES=pglite Postgres tables on PGlite. */
export const STORES = process.env.FXBOT_STORES === 'pglite' ? 'pglite' : 'memory';

let pglite = null;
let tablesMade = 0;
/** One PGlite for the process; each store gets tables of its own (a prefix). */
async function database() {
  if (!pglite) {
    const { PGlite } = await import('@electric-sql/pglite');
    pglite = new PGlite();
  }
  return pglite;
}
const lazyDb = { query: async (sql, params) => (await database()).query(sql, params) };

/** The suites' fxbot store: memoryFxbotStore, or a postgresFxbotStore on PGlite. */
export function memoryFxbotStore() {
  if (STORES === 'memory') return memoryDocs();
  tablesMade += 1;
  return postgresFxbotStore(lazyDb, { prefix: `suite${tablesMade}` });
}

/** The suites' session store: memorySessionStore, or a postgresSessionStore on PGlite. */
export function memorySessionStore() {
  if (STORES === 'memory') return memorySessions();
  tablesMade += 1;
  return postgresSessionStore(lazyDb, { prefix: `suite${tablesMade}` });
}
const TOKEN = 'Bearer target-token';

export async function createFxbot(options) {
  if (TARGET === 'local') return createLocal(options);
  const inner = await createLocal(options);
  const handler = createFxbotServer(inner, {
    authorize: (request) => request.headers.get('authorization') === TOKEN,
    heartbeatMs: 1000,
  });
  const served = await listen(handler, { port: 0, host: '127.0.0.1' });
  // A test that fails before close() must not keep the process alive.
  served.server.unref();
  const client = await connectFxbot({ url: served.url, headers: { authorization: TOKEN } });
  const close = client.close;
  client.close = async () => {
    await close();
    await inner.close();
    await served.close();
  };
  return client;
}
