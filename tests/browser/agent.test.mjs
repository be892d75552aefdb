// createFxAgent in Chromium, Firefox and WebKit: the package loaded from the static server, a
// fake fetch inside the page (tests/node/agent-support.mjs runs there unchanged): a streamed text
// turn, a tool turn through a fake workspace, and a cancel that reaches the fetch signal.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { ENGINES, openHarness } from './engines.mjs';

for (const engine of ENGINES) {
  describe(`createFxAgent in ${engine}`, () => {
    let browser;

    before(async () => {
      browser = await openHarness(engine);
    });

    after(async () => {
      await browser?.close();
    });

    /** Runs `scenario` (a function of `{ fx, support }`) in the page and returns its result. */
    function check(scenario) {
      return browser.page.evaluate(`async () => {
        const fx = await import('/pkg/index.js');
        const support = await import('/tests/node/agent-support.mjs');
        return (${scenario})({ fx, support });
      }`);
    }

    test('the page runs in the engine it names (user agent in the diagnostics)', (t) => {
      const expected = { chromium: /Chrome\/\d+/, firefox: /Gecko\/\d+ Firefox\/\d+/, webkit: /AppleWebKit\/[\d.]+ \(KHTML, like Gecko\) Version\/[\d.]+ Safari/ };
      assert.match(browser.userAgent, expected[engine]);
      if (engine === 'webkit') assert.doesNotMatch(browser.userAgent, /Chrome/);
      t.diagnostic(`${engine}: ${browser.userAgent}`);
    });

    test('a streamed text turn, stored in the session store', async () => {
      const value = await check(async ({ fx, support }) => {
        const net = support.fakeFetch([{ events: support.textEvents('Hel', 'lo ', 'from ', 'the page') }]);
        const sessionStore = fx.memorySessionStore();
        const agent = await fx.createFxAgent({ fetch: net.fetch, env: support.env, sessionStore });
        const session = await agent.createSession();
        const turn = session.prompt('say hello');
        const updates = await support.collect(turn);
        const stopReason = await turn.stopReason;
        const view = await fx.readSession((await sessionStore.load(session.id)).bytes);
        const exit = await agent.close();
        return {
          text: support.agentText(updates),
          stopReason,
          url: net.chats()[0].url,
          auth: net.chats()[0].headers.authorization,
          stored: view.turns[0].assistant,
          exit,
        };
      });
      assert.deepEqual(value, {
        text: 'Hello from the page',
        stopReason: 'end_turn',
        url: 'https://ai-gateway.vercel.sh/v3/ai/language-model',
        auth: 'Bearer test-key',
        stored: 'Hello from the page',
        exit: 0,
      });
    });

    test('a tool turn through a fake workspace', async () => {
      const value = await check(async ({ fx, support }) => {
        const net = support.fakeFetch([
          { events: support.toolEvents('Listing.', [['c1', 'ls -a']]) },
          { events: support.textEvents('Nothing much.') },
        ]);
        const workspace = support.fakeWorkspace();
        const agent = await fx.createFxAgent({ fetch: net.fetch, env: support.env, workspace });
        const session = await agent.createSession();
        const updates = await support.collect(session.prompt('what is here?'));
        const toolMessage = net.chats()[1].body.prompt.find((m) => m.role === 'tool');
        await agent.close();
        return {
          kinds: updates.map((u) => u.sessionUpdate),
          commands: workspace.calls.map((c) => c.command),
          signal: workspace.calls[0].signal instanceof AbortSignal,
          result: toolMessage.content[0].output.value,
          tools: net.chats()[0].body.tools.map((t) => t.name),
        };
      });
      assert.deepEqual(value, {
        kinds: ['agent_message_chunk', 'tool_call', 'tool_call_update', 'tool_call_update', 'agent_message_chunk'],
        commands: ['ls -a'],
        signal: true,
        result: 'exit_code=0\n<stdout>\nran ls -a\n</stdout>\n',
        tools: ['terminal'],
      });
    });

    test('cancel during the stream, and during a command', async () => {
      const value = await check(async ({ fx, support }) => {
        const chunk = support.sse([{ type: 'text-delta', delta: 'partial' }], { done: false });
        const net = support.fakeFetch([
          { stall: true, chunks: [chunk] },
          { events: support.toolEvents('', [['c9', 'sleep 60']]) },
        ]);
        let started;
        const running = new Promise((resolve) => {
          started = resolve;
        });
        const signals = [];
        const workspace = support.fakeWorkspace({
          run: ({ signal }) => {
            signals.push(signal);
            started();
            return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
          },
        });
        const agent = await fx.createFxAgent({ fetch: net.fetch, env: support.env, workspace });
        const session = await agent.createSession();

        const streaming = session.prompt('write');
        let seen = '';
        for await (const update of streaming) {
          seen += update.content?.text ?? '';
          streaming.cancel();
        }
        const first = await streaming.stopReason;

        const tool = session.prompt('run');
        await running;
        tool.cancel();
        const second = await tool.stopReason;
        await agent.close();
        return { seen, first, streamAborted: net.chats()[0].signal.aborted, second, execAborted: signals[0].aborted };
      });
      assert.deepEqual(value, { seen: 'partial', first: 'cancelled', streamAborted: true, second: 'cancelled', execAborted: true });
    });

    test('no errors reached the page', async () => {
      assert.deepEqual(await browser.page.errors(), []);
    });
  });
}
