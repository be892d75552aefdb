// One fxbot server process of the scale test (tests/node/fxbot-scale.test.mjs): pg's Pool on
// DATABASE_URL, the Postgres stores, the model at FX_GATEWAY_CHAT_URL, owner OWNER; prints its
// URL as one JSON line and serves until SIGTERM.

import pg from 'pg';

import { createFxbot } from '../../pkg/fxbot/node.js';
import { postgresFxbotStore, postgresSessionStore } from '../../pkg/fxbot/postgres.js';
import { createFxbotServer, listen } from '../../pkg/fxbot/server-node.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 8 });
const fxbot = await createFxbot({
  store: postgresFxbotStore(pool),
  sessionStore: postgresSessionStore(pool),
  env: { FX_GATEWAY_CHAT_URL: process.env.FX_GATEWAY_CHAT_URL },
  owner: process.env.OWNER,
});
const token = process.env.TOKEN;
const served = await listen(createFxbotServer(fxbot, { authorize: (r) => r.headers.get('authorization') === `Bearer ${token}` }));
console.log(JSON.stringify({ url: served.url }));
process.on('SIGTERM', async () => {
  await fxbot.close();
  await served.close();
  await pool.end();
  process.exit(0);
});
