// The target the public-API bots suites run against (issue 23): `createFxbot(options)` of
// fx-wasm/fxbot in this process (the default), or, with FXBOT_TARGET=server, the same fxbot
// behind createFxbotServer on a loopback port and reached through connectFxbot. The options
// (stores, fetch, env) go to the fxbot behind the server, so a suite's fakes still see every
// model request; `close()` of the returned object also closes the server and that fxbot.

import { createFxbot as createLocal } from '../../pkg/fxbot/node.js';
import { connectFxbot } from '../../pkg/fxbot/client.js';
import { createFxbotServer, listen } from '../../pkg/fxbot/server-node.js';

export const TARGET = process.env.FXBOT_TARGET === 'server' ? 'server' : 'local';
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
