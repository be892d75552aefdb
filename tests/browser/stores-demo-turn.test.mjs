// The offline try-page path end to end in Chromium, minus the terminal: createFxAgent from the
// built package, pointed at the dev gateway's scripted demo model, with the just-bash workspace
// and the IndexedDB session store. The demo's SSE must satisfy the real gateway parser, its tool
// calls must run in just-bash, and the finished turn must be stored.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { startDevGateway } from '../../examples/dev-gateway/server.mjs';
import { openBrowser } from './chromium.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let browser;
let gateway;

before(async () => {
  gateway = await startDevGateway({ port: 0, demo: true, apiKey: '', demoDelayMs: 2 });
  browser = await openBrowser();
  const importMap = await readFile(join(root, 'examples', 'dev-gateway', 'importmap.json'), 'utf8');
  const pageUrl = `${gateway.url}__demo-turn-test.html`;
  await browser.page.route(pageUrl, (route) =>
    route.fulfill({
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="importmap">${importMap}</script><p>demo turn test</p>`,
    }),
  );
  await browser.page.goto(pageUrl);
});

after(async () => {
  await browser?.close();
  await gateway?.close();
});

test('a prompt to the demo model runs its commands in just-bash and finishes', async () => {
  const out = await browser.page.evaluate(async () => {
    const fx = await import('/pkg/index.js');
    const { createJustBashWorkspace } = await import('/examples/try/workspace.js');
    const workspace = createJustBashWorkspace();
    const executed = [];
    const exec = workspace.exec;
    workspace.exec = (input) => {
      executed.push(input.command);
      return exec(input);
    };
    const sessionStore = fx.indexedDbSessionStore({ name: 'test.demo' });
    const agent = await fx.createFxAgent({
      env: {
        AI_GATEWAY_API_KEY: 'placeholder',
        FX_GATEWAY_CHAT_URL: `${location.origin}/v3/ai/language-model`,
        FX_MODEL: 'fx-demo/scripted',
      },
      workspace,
      sessionStore,
    });
    const session = await agent.createSession();
    const turn = session.prompt('what is in this project?');
    const updates = [];
    for await (const update of turn) updates.push(update);
    const stopReason = await turn.stopReason;
    const text = updates
      .filter((u) => u.sessionUpdate === 'agent_message_chunk')
      .map((u) => u.content?.text ?? '')
      .join('');
    const toolCalls = updates.filter((u) => u.sessionUpdate === 'tool_call').length;
    const stored = await fx.readSession((await sessionStore.load(session.id)).bytes);
    await agent.close();
    return { stopReason, text, toolCalls, executed, storedTurns: stored.turns.length, storedUser: stored.turns[0]?.user.text };
  });
  assert.equal(out.stopReason, 'end_turn');
  assert.deepEqual(out.executed, ['ls -la', 'cat README.md', 'grep -n TODO -r .']);
  assert.equal(out.toolCalls, 3);
  assert.match(out.text, /scripted demo model/);
  assert.match(out.text, /\*\*TODOs\*\* \(2\)/);
  assert.match(out.text, /src\/tasks\.js:\d+`: reject empty titles/);
  assert.equal(out.storedTurns, 1);
  assert.equal(out.storedUser, 'what is in this project?');
});

test('the page logged no errors', () => {
  assert.deepEqual(browser.pageErrors, []);
});
