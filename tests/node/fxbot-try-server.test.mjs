// `./scripts/try.sh --server` (examples/bots/server.mjs): the bots page and fxbot's server on
// PGlite in a temporary directory, the demo model offline. The token URL sets the cookie that
// lets the page's connectFxbot in; nothing under /api/ answers without it; a message gets the
// demo model's reply; the page and the package are served from the same origin.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { startBotsServer } from '../../examples/bots/server.mjs';
import { connectFxbot } from '../../pkg/fxbot/client.js';

test('the bots page against the server on PGlite, offline with the demo model', async () => {
  const data = await mkdtemp(join(tmpdir(), 'fxbot-try-'));
  const server = await startBotsServer({ port: 0, data, demoDelayMs: 1 });
  try {
    assert.equal((await fetch(`${server.url}/api/bots`)).status, 401);
    assert.equal((await fetch(`${server.url}/?token=wrong`, { redirect: 'manual' })).status, 401);
    const enter = await fetch(server.openUrl, { redirect: 'manual' });
    assert.equal(enter.status, 302);
    assert.equal(enter.headers.get('location'), '/examples/bots/?server');
    const cookie = enter.headers.get('set-cookie');
    assert.match(cookie, /^fxbot_token=[^;]+; HttpOnly; SameSite=Strict; Path=\//);
    const page = await fetch(`${server.url}/examples/bots/`);
    assert.match(await page.text(), /<title>fx bots<\/title>/);
    const script = await fetch(`${server.url}/examples/bots/bots.js`);
    assert.match(await script.text(), /connectFxbot\(\{ url: location.origin \}\)/);
    assert.equal((await fetch(`${server.url}/pkg/fxbot/client.js`)).status, 200);
    assert.equal((await fetch(`${server.url}/../package.json`)).status, 404);
    assert.equal((await fetch(`${server.url}/.fxbot-data/x`)).status, 404);
    // What the page does, with the cookie the browser would send.
    const fxbot = await connectFxbot({ url: server.url, headers: { cookie: cookie.split(';')[0] } });
    const bot = await fxbot.bots.create({ name: 'Demo' });
    const sent = await fxbot.chat.send(bot.id, { text: 'hello', messageId: 'try-1' });
    let text = '';
    for await (const line of fxbot.chat.stream(bot.id, sent.cursor)) {
      if (line.type === 'text') text += line.text;
      if (line.type === 'turn_end') break;
    }
    assert.match(text, /scripted demo model/);
    await fxbot.close();
  } finally {
    await server.close();
    await rm(data, { recursive: true, force: true });
  }
});
