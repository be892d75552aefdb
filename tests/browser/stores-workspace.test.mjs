// The try page's building blocks in Chromium, served by the dev gateway: just-bash's browser
// bundle loads through examples/dev-gateway/importmap.json, the workspace adapter runs commands
// over the starter project (files persist, aborts reject), and the scripted demo model streams
// over the page's own fetch.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { startDevGateway } from '../../examples/dev-gateway/server.mjs';
import { openBrowser } from './chromium.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let browser;
let gateway;

before(async () => {
  gateway = await startDevGateway({ port: 0, demo: true, apiKey: '', demoDelayMs: 5 });
  browser = await openBrowser();
  const importMap = await readFile(join(root, 'examples', 'dev-gateway', 'importmap.json'), 'utf8');
  const pageUrl = `${gateway.url}__workspace-test.html`;
  // A page with the import map, as the try page will have it (served by the test, not on disk).
  await browser.page.route(pageUrl, (route) =>
    route.fulfill({
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="importmap">${importMap}</script><p>workspace test</p>`,
    }),
  );
  await browser.page.goto(pageUrl);
});

after(async () => {
  await browser?.close();
  await gateway?.close();
});

describe('in Chromium through the dev gateway', () => {
  test('the just-bash workspace runs commands over the starter project', async () => {
    const out = await browser.page.evaluate(async () => {
      const { createJustBashWorkspace } = await import('/examples/try/workspace.js');
      const ws = createJustBashWorkspace({ permission: 'prompt' });
      const exec = (command, extra = {}) =>
        ws.exec({ command, cwd: ws.info.cwd, signal: new AbortController().signal, timeoutMs: 30000, outputLimitBytes: 65536, ...extra });
      const r = { info: ws.info, permission: ws.permission };
      r.ls = await exec('ls');
      r.todos = await exec('grep -n TODO -r src');
      await exec('echo "kept" > note.txt');
      r.note = await exec('cat note.txt');
      r.fail = await exec('cat missing.txt');
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      r.abort = await exec('sleep 5', { signal: controller.signal }).then(() => 'resolved', (e) => e.name);
      r.jq = await exec('echo \'{"a":[1,2]}\' | jq -c .a');
      return r;
    });
    assert.deepEqual(out.info, { version: 1, root: '/workspace', cwd: '/workspace', home: '/home/visitor', gitAvailable: false, ephemeral: true });
    assert.equal(out.permission, 'prompt');
    assert.equal(out.ls.exitCode, 0);
    assert.match(out.ls.stdout, /README\.md/);
    assert.match(out.todos.stdout, /src\/tasks\.js:\d+:.*TODO/);
    assert.deepEqual(out.note, { stdout: 'kept\n', stderr: '', exitCode: 0 });
    assert.notEqual(out.fail.exitCode, 0);
    assert.equal(out.abort, 'AbortError');
    assert.equal(out.jq.stdout, '[1,2]\n');
  });

  test('the demo model streams SSE to the page in several chunks', async () => {
    const out = await browser.page.evaluate(async () => {
      const res = await fetch('/v3/ai/language-model', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'ai-language-model-id': 'fx-demo/scripted' },
        body: JSON.stringify({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [{ type: 'function', name: 'terminal' }] }),
      });
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let text = '';
      let reads = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        reads += 1;
        text += decoder.decode(value, { stream: true });
      }
      return { status: res.status, type: res.headers.get('content-type'), reads, text };
    });
    assert.equal(out.status, 200);
    assert.match(out.type, /^text\/event-stream/);
    assert.ok(out.reads > 3, `streamed in ${out.reads} reads`);
    assert.match(out.text, /"type":"tool-call"/);
    assert.ok(out.text.endsWith('data: [DONE]\n\n'));
  });

  test('the page logged no errors', () => {
    assert.deepEqual(browser.pageErrors, []);
  });
});
