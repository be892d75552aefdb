// The scale test of fxbot's server (issue 23), with Debian's PostgreSQL (`apt-get install
// postgresql`; skipped when its initdb is not there): a server started by the test on a
// loopback port in a temporary directory, three fxbot server processes on that one database
// (pg's Pool), and 300 sends from 30 clients across 10 bots. One model request per messageId
// (a fake model on loopback counts them), 409s only FXBOT_BUSY, no lost or duplicated turn.
// Prints throughput and the p95 latency of `send` and of the first stream line; then the same
// load against one server on PGlite.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { PGlite } from '@electric-sql/pglite';

import { createFxbot } from '../../pkg/fxbot/node.js';
import { connectFxbot } from '../../pkg/fxbot/client.js';
import { postgresFxbotStore, postgresSessionStore } from '../../pkg/fxbot/postgres.js';
import { createFxbotServer, listen } from '../../pkg/fxbot/server-node.js';

const here = dirname(fileURLToPath(import.meta.url));
// Heavy (tens of seconds, a PostgreSQL server): only with FXBOT_SCALE=1.
const SCALE = process.env.FXBOT_SCALE === '1';
const PG_BIN = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'].find((d) => existsSync(join(d, 'initdb')));
const TOKEN = 'scale-token';
const CLIENTS = Number(process.env.FXBOT_SCALE_CLIENTS ?? 30);
const BOTS = 10;
const SENDS = Number(process.env.FXBOT_SCALE_SENDS ?? 300);

/** A fake AI Gateway on loopback: a short streamed reply; counts the requests per scale message id. */
async function fakeModel() {
  const counts = new Map();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', async () => {
      const ids = [...new Set(body.match(/scale-\d+-\d+/g) ?? [])];
      // The last message's id is the newest one in the prompt (earlier turns are in it too).
      const id = ids.sort((a, b) => body.lastIndexOf(b) - body.lastIndexOf(a))[0] ?? 'none';
      counts.set(id, (counts.get(id) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const delta of ['ok ', 'from ', 'the model']) {
        res.write(`data: ${JSON.stringify({ type: 'text-delta', id: 't', delta })}\n\n`);
        await new Promise((r) => setTimeout(r, 2));
      }
      res.end('data: {"type":"finish","finishReason":{"unified":"stop","raw":"stop"},"usage":{"inputTokens":{"total":1},"outputTokens":{"total":1}}}\n\ndata: [DONE]\n\n');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/v3/ai/language-model`, counts, close: () => new Promise((r) => server.close(r)) };
}

function freePort() {
  return new Promise((resolve) => {
    const s = createNetServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** initdb + pg_ctl start in a temporary directory, on a loopback port (as `postgres` when root). */
async function startPostgres() {
  const dir = await mkdtemp(join(tmpdir(), 'fxbot-pg-'));
  await chmod(dir, 0o777);
  const data = join(dir, 'data');
  const port = await freePort();
  const asUser = process.getuid?.() === 0 ? (cmd, args) => ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : (cmd, args) => [cmd, args];
  // No pipes: the postmaster pg_ctl leaves running would hold them open (it logs to a file).
  const run = (cmd, args) => {
    const [c, a] = asUser(join(PG_BIN, cmd), args);
    execFileSync(c, a, { stdio: 'ignore' });
  };
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`, 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

function startServerProcess(env) {
  const child = spawn(process.execPath, [join(here, '..', 'scale', 'fxbot-server-process.mjs')], {
    env: { ...process.env, ...env, TOKEN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`server process exited with ${code}`)));
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ url: JSON.parse(line).url, stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))) });
    });
  });
}

const p95 = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)];
};

/**
 * 30 clients (client c on server c % n, bot c % 10) send 10 messages each; a 409 FXBOT_BUSY is
 * retried with the same messageId; each client's first message also goes to a second server at
 * once (one model request between them). Returns the figures and checks the rules.
 */
async function load(urls, model) {
  const clients = await Promise.all(urls.map((url) => connectFxbot({ url, headers: { authorization: `Bearer ${TOKEN}` } })));
  const admin = clients[0];
  const provider = await admin.providers.add({ kind: 'gateway', apiKey: 'scale-key', model: 'scale/model' });
  await admin.settings.update({ defaultProvider: provider.id });
  const bots = [];
  for (let i = 0; i < BOTS; i++) bots.push(await admin.bots.create({ name: `bot${i}` }));
  const sendMs = [];
  const firstLineMs = [];
  const refusals = [];
  const sent = new Map();
  const started = performance.now();
  const perClient = SENDS / CLIENTS;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      const fxbot = clients[c % clients.length];
      const other = clients[(c + 1) % clients.length];
      const bot = bots[c % BOTS];
      for (let k = 0; k < perClient; k++) {
        const message = { text: `please answer scale-${c}-${k}`, messageId: `scale-${c}-${k}` };
        let result;
        let follower = fxbot;
        for (;;) {
          const t0 = performance.now();
          try {
            if (k === 0 && clients.length > 1) {
              const both = await Promise.allSettled([fxbot.chat.send(bot.id, message), other.chat.send(bot.id, message)]);
              const ok = both.filter((b) => b.status === 'fulfilled').map((b) => b.value);
              for (const b of both) if (b.status === 'rejected') refusals.push(b.reason);
              if (ok.length === 0) throw both[0].reason;
              assert.ok(ok.filter((s) => !s.duplicate).length <= 1, 'one of the two runs the message');
              // Follow it on the process that runs it: a stream follows its own process's turns
              // live (another process's appear on the next stream() call).
              const runner = both.findIndex((b) => b.status === 'fulfilled' && !b.value.duplicate);
              result = runner >= 0 ? both[runner].value : ok[0];
              follower = runner === 1 ? other : fxbot;
            } else {
              result = await fxbot.chat.send(bot.id, message);
            }
            sendMs.push(performance.now() - t0);
            break;
          } catch (error) {
            if (error.status !== 409) throw error;
            refusals.push(error);
            await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
          }
        }
        sent.set(message.messageId, bot.id);
        const t1 = performance.now();
        let first = true;
        for await (const line of follower.chat.stream(bot.id, result.cursor)) {
          if (first) {
            firstLineMs.push(performance.now() - t1);
            first = false;
          }
          if (line.type === 'turn_end' && line.turn === result.turn) break;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  // The rules: every 409 a busy bot; one model request per messageId; every turn once.
  for (const error of refusals) assert.equal(error.code, 'FXBOT_BUSY', error.message);
  assert.equal(sent.size, SENDS);
  for (const id of sent.keys()) assert.equal(model.counts.get(id), 1, `model requests for ${id}`);
  let turns = 0;
  for (const bot of bots) {
    const list = await admin.chat.turns(bot.id);
    const ids = list.map((t) => t.messageId);
    assert.equal(new Set(ids).size, ids.length, `a duplicated turn on ${bot.id}: ${JSON.stringify(list.map((t) => [t.turn, t.messageId, t.sessionId.slice(-6)]))}`);
    assert.deepEqual(list.map((t) => t.turn), list.map((_, i) => i + 1), 'turn numbers without a gap');
    assert.ok(list.every((t) => t.status === 'done'), JSON.stringify(list.filter((t) => t.status !== 'done').map((t) => [t.turn, t.messageId, t.status, t.error])));
    for (const id of ids) assert.equal(sent.get(id), bot.id);
    turns += list.length;
  }
  assert.equal(turns, SENDS, 'no lost turn');
  for (const c of clients) await c.close();
  return {
    sends: SENDS,
    seconds: Number(seconds.toFixed(2)),
    sendsPerSecond: Number((SENDS / seconds).toFixed(1)),
    p95SendMs: Number(p95(sendMs).toFixed(1)),
    p95FirstLineMs: Number(p95(firstLineMs).toFixed(1)),
    busy409: refusals.length,
  };
}

test('scale: three server processes on one PostgreSQL, 300 sends from 30 clients across 10 bots', { skip: !SCALE ? 'set FXBOT_SCALE=1' : PG_BIN ? false : 'no PostgreSQL server (apt-get install postgresql)', timeout: 600_000 }, async () => {
  const model = await fakeModel();
  const pgServer = await startPostgres();
  const servers = [];
  try {
    // The schema first, from here: the three processes then find it made.
    for (let i = 0; i < 3; i++) {
      servers.push(await startServerProcess({ DATABASE_URL: pgServer.url, FX_GATEWAY_CHAT_URL: model.url, OWNER: `server-${i}` }));
    }
    const figures = await load(servers.map((s) => s.url), model);
    console.log(`# scale PostgreSQL (3 processes): ${JSON.stringify(figures)}`);
  } finally {
    for (const s of servers) await s.stop();
    await pgServer.stop();
    await model.close();
  }
});

test('scale: the same load against one server on PGlite', { skip: SCALE ? false : 'set FXBOT_SCALE=1', timeout: 600_000 }, async () => {
  const model = await fakeModel();
  const db = new PGlite();
  const fxbot = await createFxbot({ store: postgresFxbotStore(db), sessionStore: postgresSessionStore(db), env: { FX_GATEWAY_CHAT_URL: model.url } });
  const served = await listen(createFxbotServer(fxbot, { authorize: (r) => r.headers.get('authorization') === `Bearer ${TOKEN}` }));
  try {
    const figures = await load([served.url], model);
    console.log(`# scale PGlite (1 process): ${JSON.stringify(figures)}`);
  } finally {
    await fxbot.close();
    await served.close();
    await db.close();
    await model.close();
  }
});
