// The terminal's frames in Chromium with the real xterm.js, while a reply streams whose chunks
// are all available at once (a read of a queued chunk resolves in a microtask): keys typed
// meanwhile are echoed before the stream is drained, the screen is painted at most once per
// animation frame (never once per read), and the reply's end is painted within one frame of
// its last delta being read.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { openBrowser } from './chromium.mjs';

describe('terminal frames in Chromium', () => {
  let browser;

  before(async () => {
    browser = await openBrowser();
    await browser.page.goto(`${browser.url}tests/browser/harness.html`);
  });

  after(async () => {
    await browser?.close();
  });

  test('a fast stream: echo between reads, one paint per frame, the end within a frame', async () => {
    const { page } = browser;
    const started = await page.evaluate(async () => {
      const { Terminal } = await import('/node_modules/@xterm/xterm/lib/xterm.mjs');
      const fx = await import('/pkg/index.js');
      const state = { frames: 0, writes: [], pulls: 0, lastDeltaFrame: null, done: false };
      window.framesState = state;
      // Every animation frame is counted when its first callback runs (the counting loop's,
      // registered before any repaint of that frame); a write records the count.
      const raf = window.requestAnimationFrame.bind(window);
      let lastTime = null;
      window.requestAnimationFrame = (callback) =>
        raf((time) => {
          if (time !== lastTime) {
            lastTime = time;
            state.frames += 1;
          }
          callback(time);
        });
      const tick = () => window.requestAnimationFrame(tick);
      tick();

      const host = document.createElement('div');
      document.body.append(host);
      const term = new Terminal({ cols: 100, rows: 30 });
      term.open(host);
      term.focus();
      const base = fx.xtermAdapter(term);
      const decoder = new TextDecoder();
      const adapter = {
        ...base,
        write(bytes) {
          state.writes.push({ text: decoder.decode(bytes), frames: state.frames });
          base.write(bytes);
        },
        get cols() {
          return term.cols;
        },
        get rows() {
          return term.rows;
        },
      };
      const encoder = new TextEncoder();
      const TOKENS = 3000;
      const chunks = [];
      for (let i = 0; i < TOKENS; i += 1) {
        const delta = `${String(i % 1000).padStart(3, '0')} `;
        chunks.push(`data: ${JSON.stringify({ type: 'text-delta', id: 't', delta })}\n\n`);
      }
      chunks.push(`data: ${JSON.stringify({ type: 'text-delta', id: 't', delta: 'the end.' })}\n\n`);
      const lastDelta = chunks.length - 1;
      chunks.push(`data: ${JSON.stringify({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: {} })}\n\ndata: [DONE]\n\n`);
      const fetch = async (url, init) => {
        if ((init?.method ?? 'GET') === 'GET') return new Response('{"data":[]}', { status: 200 });
        // Every chunk is there as soon as it is asked for: no read waits for the network.
        const body = new ReadableStream(
          {
            pull(controller) {
              if (state.pulls === lastDelta) state.lastDeltaFrame = state.frames;
              controller.enqueue(encoder.encode(chunks[state.pulls]));
              state.pulls += 1;
              if (state.pulls === chunks.length) controller.close();
            },
          },
          { highWaterMark: 0 },
        );
        return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
      };
      const runtime = await fx.createFxTerminal({ terminal: adapter, env: { AI_GATEWAY_API_KEY: 'browser-key' }, fetch });
      await runtime.interactive;
      window.framesRuntime = runtime;
      term.input('go');
      state.start = state.writes.length;
      term.input('\r');
      return { chunks: chunks.length };
    });
    // As soon as the page answers while the stream runs (it cannot while reads run back to
    // back), a key is typed through xterm's own input path.
    await page.waitForFunction(() => window.framesState.writes.some((w) => w.text.includes('010 ')));
    await page.keyboard.type('Q');
    await page.waitForFunction(() => window.framesState.writes.some((w) => w.text.includes('the end.')), null, {
      timeout: 60_000,
    });
    const result = await page.evaluate(() => {
      const state = window.framesState;
      const writes = state.writes.slice(state.start);
      const echo = writes.findIndex((w) => w.text.includes('Q'));
      const end = writes.findIndex((w) => w.text.includes('the end.'));
      // Before the end (whose turn footer is painted at once), every write but the echo is a
      // frame's repaint: no two between the same two frames.
      const perFrame = new Map();
      for (const w of writes.slice(0, end)) {
        if (!w.text.includes('Q')) perFrame.set(w.frames, (perFrame.get(w.frames) ?? 0) + 1);
      }
      window.framesRuntime.abort();
      return {
        echo,
        end,
        writes: writes.length,
        pulls: state.pulls,
        busiestFrame: Math.max(0, ...perFrame.values()),
        framesToEnd: writes[end].frames - state.lastDeltaFrame,
        doubled: writes.filter((w) => perFrame.get(w.frames) > 1).map((w) => `${w.frames}: ${JSON.stringify(w.text).slice(0, 120)}`),
      };
    });
    assert.ok(result.echo >= 0, 'the typed key was echoed');
    assert.ok(result.echo < result.end, `the key was echoed (write ${result.echo}) before the reply's end (write ${result.end})`);
    assert.ok(result.writes < started.chunks / 5, `${result.writes} writes for ${started.chunks} reads`);
    assert.equal(result.busiestFrame, 1, `at most one paint per animation frame: ${result.doubled.join('\n')}`);
    assert.ok(result.framesToEnd <= 1, `the end was painted ${result.framesToEnd} frames after its delta was read`);
    assert.deepEqual(browser.pageErrors, []);
  });
});
