// createFxTerminal with the real xterm.js in Chromium, Firefox and WebKit: the package and
// xterm.js loaded in the page, a fake fetch streaming a reply, keys typed through xterm's own
// input path, and the screen read back from xterm's buffer.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { ENGINES, openHarness } from './engines.mjs';

for (const engine of ENGINES) {
  describe(`the terminal in ${engine}`, () => {
    let browser;

    before(async () => {
      browser = await openHarness(engine);
    });

    after(async () => {
      await browser?.close();
    });

    test('fx runs with real xterm.js: a streamed reply, markdown, /exit', async () => {
      const result = await browser.page.evaluate(async () => {
        const { Terminal } = await import('/node_modules/@xterm/xterm/lib/xterm.mjs');
        const fx = await import('/pkg/index.js');
        const host = document.createElement('div');
        document.body.append(host);
        const term = new Terminal({ cols: 80, rows: 24 });
        term.open(host);
        const encoder = new TextEncoder();
        const sse = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n';
        const reply = 'Hello from **the page**.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n';
        const deltas = reply.match(/[\s\S]{1,4}/gu);
        const fetch = async (url, init) => {
          if ((init?.method ?? 'GET') === 'GET') return new Response('{"data":[]}', { status: 200 });
          const events = [
            ...deltas.map((delta) => ({ type: 'text-delta', id: 't', delta })),
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: {} },
          ];
          return new Response(encoder.encode(sse(events)), { status: 200 });
        };
        const runtime = await fx.createFxTerminal({
          terminal: fx.xtermAdapter(term),
          env: { AI_GATEWAY_API_KEY: 'browser-key' },
          fetch,
        });
        await runtime.interactive;
        const text = () => {
          const lines = [];
          const buffer = term.buffer.active;
          for (let y = 0; y < buffer.length; y += 1) lines.push(buffer.getLine(y).translateToString(true));
          return lines.join('\n');
        };
        const until = async (needle) => {
          for (let i = 0; i < 200; i += 1) {
            await new Promise((resolve) => setTimeout(resolve, 10));
            if (text().includes(needle)) return true;
          }
          return false;
        };
        const welcome = await until('Run /help for commands');
        term.input('say hi');
        const echoed = await until('┃ say hi');
        term.input('\r');
        const answered = await until('Hello from the page.');
        const screen = text();
        runtime.write('/exit\r');
        const code = await runtime.exited;
        return { welcome, echoed, answered, screen, code };
      });
      assert.ok(result.welcome, result.screen);
      assert.ok(result.echoed, result.screen);
      assert.ok(result.answered, result.screen);
      assert.match(result.screen, /│ 1 +│ 2/);
      assert.equal(result.code, 0);
      assert.deepEqual(await browser.page.errors(), []);
    });
  });
}
