// Test support for createFxTerminal: a headless xterm.js terminal wrapped by xtermAdapter,
// screen text, and waiting for what the screen shows.

import xtermHeadless from '@xterm/headless';

import { createFxTerminal, xtermAdapter } from '../../pkg/index.js';

const { Terminal } = xtermHeadless;

export function headless(cols = 80, rows = 24) {
  return new Terminal({ cols, rows, allowProposedApi: true, scrollback: 1000 });
}

/** Waits until xterm has parsed everything written so far. */
export function flushed(term) {
  return new Promise((resolve) => term.write('', resolve));
}

/** The viewport's text, one line per row, trailing spaces trimmed. */
export function screen(term) {
  const buffer = term.buffer.active;
  const lines = [];
  for (let y = 0; y < term.rows; y += 1) {
    lines.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '');
  }
  return lines.join('\n');
}

/** The whole buffer, scrollback included. */
export function allText(term) {
  const buffer = term.buffer.active;
  const lines = [];
  for (let y = 0; y < buffer.length; y += 1) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
  return lines.join('\n');
}

export async function until(term, predicate, { timeout = 3000, what = 'screen condition' } = {}) {
  const start = Date.now();
  for (;;) {
    await flushed(term);
    const text = screen(term);
    if (predicate(text, allText(term))) return text;
    if (Date.now() - start > timeout) throw new Error(`timed out waiting for ${what}; screen:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const contains = (term, needle, options) =>
  until(term, (text) => text.includes(needle), { what: JSON.stringify(needle), ...options });

/** Starts a terminal on a headless xterm; returns both plus recorded events. */
export async function startTerminal(options = {}, { cols = 80, rows = 24 } = {}) {
  const term = options.term ?? headless(cols, rows);
  const events = [];
  const adapter = options.adapter ?? xtermAdapter(term);
  const runtime = await createFxTerminal({
    ...options,
    term: undefined,
    adapter: undefined,
    terminal: adapter,
    onEvent: (event) => {
      events.push(event);
      options.onEvent?.(event);
    },
  });
  await runtime.interactive;
  await flushed(term);
  return { term, runtime, events, adapter };
}
