// A resize through @xterm/headless (which reflows its buffer the way xterm.js in a browser
// does): the rows on screen are drawn again at the new width from the transcript, word-wrapped,
// instead of being left cut mid-word by the terminal's reflow.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { env, fakeFetch, textEvents } from './agent-support.mjs';
import { contains, flushed, screen, startTerminal, until } from './terminal-support.mjs';

const PROMPT = 'please describe the weather patterns over the northern mountains during late autumn evenings';
const REPLY = 'Cold fronts arrive from the northwest bringing steady drizzle, thick valley fog and occasional early snow above the treeline.';

/** The words of the screen rows that `pick` selects, in order. */
function words(text, pick) {
  return text
    .split('\n')
    .filter(pick)
    .flatMap((line) => line.replace(/^┃ /, '').trim().split(/\s+/))
    .filter(Boolean);
}

test('after a resize the transcript on screen is word-wrapped at the new width', async () => {
  const net = fakeFetch([{ events: textEvents(REPLY) }]);
  const { term, runtime } = await startTerminal({ fetch: net.fetch, env }, { cols: 100, rows: 30 });
  runtime.write(`${PROMPT}\r`);
  await contains(term, 'treeline.');
  await until(term, (text) => /\(↑\d+ ↓\d+\)/.test(text), { what: 'the turn summary' });

  for (const cols of [44, 37, 61]) {
    term.resize(cols, 30);
    await new Promise((resolve) => setTimeout(resolve, 250));
    await flushed(term);
    const text = screen(term);
    const lines = text.split('\n');
    assert.ok(lines.every((line) => line.length <= cols), `${cols}: every row fits:\n${text}`);
    const card = words(text, (line) => line.startsWith('┃ ') && !line.startsWith('┃ \u00a0') && line.trim() !== '┃');
    assert.deepEqual(card, PROMPT.split(' '), `${cols}: the prompt card keeps whole words:\n${text}`);
    const from = lines.findLastIndex((line) => line.startsWith('┃ ') && line.trim() !== '┃');
    const to = lines.findIndex((line) => /\(↑\d+ ↓\d+\)/.test(line));
    const reply = words(lines.slice(from + 1, to).join('\n'), (line) => line.startsWith('  '));
    assert.deepEqual(reply, REPLY.split(' '), `${cols}: the reply keeps whole words:\n${text}`);
  }
  runtime.abort();
});
