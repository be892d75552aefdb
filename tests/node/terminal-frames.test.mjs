// How often the terminal repaints while a reply streams, and what it writes, through
// @xterm/headless: one repaint per frame (or per input batch), never one per network read; a
// frame writes only the cells that changed, with the cursor waiting at the reply's end, so the
// bytes written per token stay near the token's own bytes; and a streamed reply leaves the
// screen and the scrollback exactly as the same reply painted at once.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { env, fakeFetch, finish, sse } from './agent-support.mjs';
import { allText, contains, flushed, headless, startTerminal, until } from './terminal-support.mjs';

const TOKENS = 400;
/** Four characters a token, as the agent benchmark's deltas (tests/bench/agent-measure.mjs). */
const token = (i) => `${String(i % 1000).padStart(3, '0')} `;

/** A body that enqueues one SSE event (one token) per read, each a macrotask after the last. */
function oneTokenPerRead(events) {
  const chunks = sse(events).split(/(?<=\n\n)/);
  return (controller) => {
    let i = 0;
    const next = () => {
      if (i === chunks.length) {
        controller.close();
        return;
      }
      controller.enqueue(new TextEncoder().encode(chunks[i]));
      i += 1;
      setTimeout(next, 0);
    };
    setTimeout(next, 0);
  };
}

/** A terminal adapter over xterm that counts what the core writes. */
function counting(term, base) {
  const stats = { bytes: 0, writes: 0 };
  return {
    stats,
    adapter: {
      ...base,
      write(bytes) {
        stats.bytes += bytes.byteLength;
        stats.writes += 1;
        base.write(bytes);
      },
      get cols() {
        return term.cols;
      },
      get rows() {
        return term.rows;
      },
    },
  };
}

const LONG_PARAGRAPH = Array.from({ length: 24 }, (_, i) => `sentence ${i} of a paragraph that never ends`).join(', ');
const REPLIES = {
  'plain text': {
    text: 'A first paragraph that wraps at the width of the screen, word by word, with **bold words**, `inline code` and _italics_ in it.\n\nA second one.\nWith a line break.\n',
    mark: 'With a line break.',
  },
  'a code block': {
    text: 'Some code:\n\n```js\nfunction add(a, b) {\n  // the sum\n  return a + b + 42; // "text"\n}\n```\n\nAfter the box.\n',
    mark: 'After the box.',
  },
  'a table that reflows': {
    text: 'A table:\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n| a longer cell | 3 |\n| x | a much longer cell than the others, wrapped |\n\nAfter the table.\n',
    mark: 'After the table.',
  },
  'wide characters': {
    text: '漢字とかなの文章は一文字が二列を使い、折り返しも二列ごとに行われます。もう少し長く書いて、何行かに折り返されるようにします。\n\n| 列 | 値 |\n| --- | --- |\n| 名前 | 山田 |\n| 住所 | 東京都千代田区丸の内 |\n\n終わり。\n',
    mark: '終わり。',
  },
  'a reply longer than the screen': {
    text: `${LONG_PARAGRAPH}.\n\n${Array.from({ length: 30 }, (_, i) => `- item ${i}`).join('\n')}\n\n| n | square |\n| --- | --- |\n${Array.from({ length: 16 }, (_, i) => `| ${i} | ${i * i} |`).join('\n')}\n\nThe end.\n`,
    mark: 'The end.',
  },
};

describe('terminal frames', () => {
  // Issue 22's budget: at most 6 bytes a token, one token per read. The text is 4 bytes a
  // token; besides it a frame that only grows the reply writes nothing (the cursor waits hidden
  // at the reply's end), and a frame that grows it a row moves the rows under it down (about 30
  // bytes a row). 8.4 before issue 22 (cursor round trips, rows rewritten), 36.9 before issue 13.
  test('a token per read, a macrotask apart: one repaint per frame, at most 6 bytes a token, the end on screen', async () => {
    const deltas = Array.from({ length: TOKENS }, (_, i) => token(i));
    deltas.push('the end.');
    const events = [...deltas.map((delta) => ({ type: 'text-delta', id: 't', delta })), finish()];
    const net = fakeFetch([{ stream: oneTokenPerRead(events) }]);
    const term = headless(100, 30);
    const { xtermAdapter } = await import('../../pkg/index.js');
    const { adapter, stats } = counting(term, xtermAdapter(term));
    const { runtime } = await startTerminal({ fetch: net.fetch, env, term, adapter });
    runtime.write('go');
    await flushed(term);
    const before = { bytes: stats.bytes, writes: stats.writes };
    runtime.write('\r');
    await contains(term, 'the end.', { timeout: 20000 });
    // The turn's footer (its duration and usage) follows the reply.
    await contains(term, '↑', { timeout: 5000 });
    const bytes = stats.bytes - before.bytes;
    const writes = stats.writes - before.writes;
    const perToken = bytes / deltas.length;
    assert.ok(
      perToken <= 6,
      `${bytes} bytes in ${writes} writes for ${deltas.length} tokens: ${perToken.toFixed(1)} bytes per token`,
    );
    assert.ok(writes < deltas.length / 4, `${writes} writes for ${deltas.length} reads: about one per read`);
    // Every token is on screen (or in the scrollback), in order.
    const text = allText(term).replace(/\s+/g, ' ');
    assert.ok(text.includes(`${deltas.slice(0, 20).join('').trim()}`), 'the first tokens are shown in order');
    assert.ok(text.includes(`${deltas.slice(-10).join('').trim()}`), 'the last tokens are shown in order');
    runtime.abort();
  });

  test('input is echoed in its own write while a reply streams', async () => {
    const deltas = Array.from({ length: 200 }, (_, i) => token(i));
    const events = [...deltas.map((delta) => ({ type: 'text-delta', id: 't', delta })), finish()];
    const net = fakeFetch([{ stream: oneTokenPerRead(events) }]);
    const term = headless(100, 30);
    const { xtermAdapter } = await import('../../pkg/index.js');
    const base = xtermAdapter(term);
    const written = [];
    const adapter = {
      ...base,
      write(bytes) {
        written.push(new TextDecoder().decode(bytes));
        base.write(bytes);
      },
      get cols() {
        return term.cols;
      },
      get rows() {
        return term.rows;
      },
    };
    const { runtime } = await startTerminal({ fetch: net.fetch, env, term, adapter });
    runtime.write('go\r');
    await contains(term, '010 ', { timeout: 5000 });
    const mark = written.length;
    runtime.write('Q');
    // The keystroke is painted at once, not at the next frame.
    assert.ok(written.length > mark, 'the keystroke wrote synchronously');
    assert.ok(written.slice(mark).join('').includes('Q'), 'the write holds the echoed key');
    await contains(term, '198 199', { timeout: 20000 });
    runtime.abort();
  });

  // The final screen and scrollback of a streamed reply (one small delta per read) are those of
  // the same reply arriving in one read, which paints it at once: whatever the frames wrote
  // meanwhile (a table laid out again as its columns grow, a code box closed, the oldest rows
  // of a long paragraph given way), every cell ends as a full repaint leaves it.
  for (const [name, reply] of Object.entries(REPLIES)) {
    test(`streamed ${name} leaves the screen and scrollback a full repaint leaves`, async () => {
      const streamed = await replyBuffer(reply, 3);
      const painted = await replyBuffer(reply, 0);
      assert.ok(painted.some((line) => line.includes(reply.mark)), `the reply is on screen:\n${painted.join('\n')}`);
      const differs = painted.findIndex((line, i) => line !== streamed[i]);
      assert.ok(
        differs === -1 && streamed.length === painted.length,
        `row ${differs} of ${streamed.length} / ${painted.length}:\n--- streamed\n${streamed.join('\n')}\n--- at once\n${painted.join('\n')}`,
      );
    });
  }
});

/**
 * Every line of the buffer (scrollback and screen) after `reply` streams in deltas of `size`
 * characters, one per read (`size` 0: the whole reply in one read), on a 60×20 terminal: each
 * cell's text and, where they change, its attributes; the turn's duration left out.
 */
async function replyBuffer(reply, size) {
  const chars = Array.from(reply.text);
  const deltas = [];
  if (size === 0) deltas.push(reply.text);
  for (let i = 0; size > 0 && i < chars.length; i += size) deltas.push(chars.slice(i, i + size).join(''));
  const events = [...deltas.map((delta) => ({ type: 'text-delta', id: 't', delta })), finish()];
  const net = fakeFetch([{ stream: oneTokenPerRead(events) }]);
  const term = headless(60, 20);
  const { runtime } = await startTerminal({ fetch: net.fetch, env, term });
  runtime.write('go\r');
  // The turn's summary row follows the reply once it is committed.
  await until(term, (_, all) => /^\s+\d+s \(↑/m.test(all), { timeout: 20000, what: 'the turn summary' });
  await flushed(term);
  const buffer = term.buffer.active;
  const lines = [];
  const cell = buffer.getNullCell();
  for (let y = 0; y < buffer.length; y += 1) {
    const line = buffer.getLine(y);
    let text = '';
    let attrs = '';
    for (let x = 0; x < term.cols; x += 1) {
      line.getCell(x, cell);
      if (cell.getWidth() === 0) continue;
      const now = `${cell.isBold()}${cell.isItalic()}${cell.isDim()}${cell.isUnderline()}${cell.getFgColorMode()}:${cell.getFgColor()}`;
      const chars = cell.getChars() || ' ';
      if (now !== attrs && chars !== ' ') {
        text += `[${now}]`;
        attrs = now;
      }
      text += chars;
    }
    lines.push(text.trimEnd().replace(/^(\s+)\d+s \(/, '$1Ns ('));
  }
  runtime.abort();
  return lines;
}
