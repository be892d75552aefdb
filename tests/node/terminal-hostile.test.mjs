// Hostile text through createFxTerminal on @xterm/headless: command output (stdout and stderr,
// exit 0 and non-zero), model replies, command titles, error messages, the transcript review
// (Ctrl+O), resumed history, the resume and model pickers. xterm.js must see none of it as a
// sequence: no title change but ours, no OSC 52 / OSC 8 / other OSC, no DCS, no bell, no
// screen clear, cursor jump or foreign SGR; and the bytes written hold no C1 control, no bidi
// override and no payload.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createFxAgent, memorySessionStore, xtermAdapter } from '../../pkg/index.js';
import { CATALOG, env, fakeFetch, fakeWorkspace, textEvents, toolEvents } from './agent-support.mjs';
import { allText, contains, flushed, headless, startTerminal, until } from './terminal-support.mjs';

// Letters with a hostile sequence between each pair: OSC 52, OSC 0 and 2 (BEL and ST), an OSC 8
// `javascript:` link, CSI clear screen / scrollback / home / moves, true-colour and blink SGR,
// DCS, APC, PM, SOS, their C1 forms, NEL, RIS, bare BEL and ESC, bidi overrides and isolates.
const HOSTILE =
  'A\x1b]52;c;RVZJTA==\x07B\x1b]0;EVIL\x07C\x1b]2;EVIL\x1b\\D' +
  "\x1b]8;;javascript:alert('EVIL')\x1b\\E\x1b]8;;\x1b\\F\x1b[2J\x1b[3J\x1b[HG" +
  '\x1b[5;5H\x1b[10A\x1b[38;2;255;0;0mH\x1b[5mI\x1bP1$qEVIL\x1b\\J\x1b_EVIL\x1b\\K' +
  '\x1b^EVIL\x1b\\L\x1bXEVIL\x1b\\M\u009b2JN\u009d0;EVIL\u009cO\u0090EVIL\u009cP\u0085Q' +
  '\x1bcR\x07S\u202eT\u2066U\u2067V\u2068W\u2069X\x1b\x07';
const SHOWN = 'ABCDEFGHIJKLMNOPQRSTUVWX';

/** Whether SGR parameters are other than ours: reset, bold, dim, italic, underline, strike, 38;5;N. */
function foreignSgr(list) {
  for (let i = 0; i < list.length; i += 1) {
    if (list[i] === 38 && list[i + 1] === 5) i += 2;
    else if (![0, 1, 2, 3, 4, 9].includes(list[i])) return true;
  }
  return false;
}

/** A headless xterm whose side effects are recorded, behind an adapter recording every write. */
function watched(cols = 100, rows = 40) {
  const term = headless(cols, rows);
  const seen = { titles: [], osc: [], dcs: [], bells: 0, clears: [], sgr: [], jumps: [] };
  term.onTitleChange((title) => seen.titles.push(title));
  term.onBell(() => {
    seen.bells += 1;
  });
  for (const ident of [0, 1, 2, 4, 7, 8, 10, 11, 12, 52, 104, 133, 633, 1337]) {
    term.parser.registerOscHandler(ident, (data) => {
      // Our own: the window title (OSC 2, "fx · …" or empty) and the background query.
      const ours = (ident === 2 && (data === '' || data.startsWith('fx · '))) || (ident === 11 && data === '?');
      if (!ours) seen.osc.push([ident, data]);
      return false;
    });
  }
  for (const id of [{ intermediates: '$', final: 'q' }, { final: 'q' }, { intermediates: '+', final: 'q' }]) {
    term.parser.registerDcsHandler(id, (data) => {
      seen.dcs.push(data);
      return false;
    });
  }
  term.parser.registerCsiHandler({ final: 'J' }, (params) => {
    seen.clears.push([...params]);
    return false;
  });
  term.parser.registerCsiHandler({ final: 'm' }, (params) => {
    if (foreignSgr(params.flat())) seen.sgr.push(params.flat());
    return false;
  });
  term.parser.registerCsiHandler({ final: 'H' }, (params) => {
    const [, col = 1] = params;
    if (col !== 1 && col !== 0) seen.jumps.push([...params]);
    return false;
  });
  const inner = xtermAdapter(term);
  const decoder = new TextDecoder();
  let written = '';
  const adapter = {
    ...inner,
    write(bytes) {
      written += decoder.decode(bytes, { stream: true });
      inner.write(bytes);
    },
  };
  return { term, adapter, seen, written: () => written };
}

/** Nothing hostile reached xterm.js, by its handlers and by the bytes. */
async function assertClean({ term, seen, written }) {
  await flushed(term);
  assert.deepEqual(seen.osc, [], 'OSC handlers fired');
  assert.deepEqual(seen.dcs, [], 'DCS handlers fired');
  assert.equal(seen.bells, 0, 'the bell rang');
  for (const title of seen.titles) {
    assert.ok(title === '' || title.startsWith('fx · '), `title changed to ${JSON.stringify(title)}`);
    assert.doesNotMatch(title, /EVIL/);
  }
  // The app clears the screen only for /clear and a theme change, neither of which runs here.
  assert.deepEqual(seen.clears.filter((p) => p[0] === 2 || p[0] === 3), [], 'the screen was cleared');
  assert.deepEqual(seen.sgr, [], 'a foreign SGR was applied');
  assert.deepEqual(seen.jumps, [], 'the cursor was moved to a foreign position');
  const bytes = written();
  assert.doesNotMatch(bytes, /EVIL|javascript:/, 'a payload reached the terminal');
  assert.doesNotMatch(bytes, /[\u0080-\u009f]/u, 'a C1 control reached the terminal');
  assert.doesNotMatch(bytes, /[\u202a-\u202e\u2066-\u2069]/u, 'a bidi control reached the terminal');
  // BEL only ends our own OSC 2 title; ESC starts only CSI, OSC 2 and the OSC 11 query.
  const withoutOurs = bytes.replace(/\x1b\]2;[^\x07\x1b]*\x07/g, '').replace(/\x1b\]11;\?\x1b\\/g, '');
  assert.doesNotMatch(withoutOurs, /\x07/, 'a bare BEL reached the terminal');
  assert.doesNotMatch(withoutOurs, /\x1b[^[]/, 'a non-CSI escape reached the terminal');
}

async function start(options, size) {
  const watch = watched(size?.cols, size?.rows);
  const { runtime } = await startTerminal({ ...options, term: watch.term, adapter: watch.adapter });
  return { ...watch, runtime };
}

const showsAll = (term, needle) =>
  until(term, (_, all) => all.includes(needle), { what: JSON.stringify(needle) });

describe('createFxTerminal with hostile outside text', () => {
  test('command output, exit 0 and non-zero, in the preview and the Ctrl+O review', async () => {
    const net = fakeFetch([
      { events: toolEvents('', [['c1', 'make'], ['c2', 'make test']]) },
      { events: textEvents('done') },
    ]);
    const outcomes = [
      { stdout: `out ${HOSTILE}\n`, stderr: `warn ${HOSTILE}\n`, exitCode: 0 },
      { stdout: `so ${HOSTILE}\n`, stderr: `err ${HOSTILE}\n`, exitCode: 2 },
    ];
    const workspace = fakeWorkspace({ run: () => outcomes.shift() });
    const t = await start({ fetch: net.fetch, env, workspace });
    t.runtime.write('build\r');
    await contains(t.term, 'done');
    await assertClean(t);
    const text = allText(t.term);
    assert.match(text, /Ran make · exit 0/);
    assert.match(text, /make test · exit 2/);
    for (const line of [`out ${SHOWN}`, `warn ${SHOWN}`, `err ${SHOWN}`]) assert.ok(text.includes(line), line);
    t.runtime.write('\x0f');
    await contains(t.term, `so ${SHOWN}`);
    t.runtime.write('\x0f');
    await contains(t.term, 'done');
    await assertClean(t);
    t.runtime.abort();
  });

  test('a failed command whose only output is hostile stderr', async () => {
    const net = fakeFetch([{ events: toolEvents('', [['c1', 'false']]) }, { events: textEvents('failed') }]);
    const workspace = fakeWorkspace({ run: () => ({ stdout: '', stderr: `${HOSTILE}\r\n`, exitCode: 1 }) });
    const t = await start({ fetch: net.fetch, env, workspace });
    t.runtime.write('try\r');
    await contains(t.term, 'failed');
    await assertClean(t);
    await showsAll(t.term, SHOWN);
    t.runtime.abort();
  });

  test('model text split into small deltas, and a hostile command title', async () => {
    const reply = `reply ${HOSTILE} end`;
    const net = fakeFetch([
      { events: toolEvents(reply.slice(0, 9), [['c1', `echo ${HOSTILE}`]]) },
      { events: textEvents(...reply.match(/[\s\S]{1,3}/gu)) },
    ]);
    const t = await start({ fetch: net.fetch, env, workspace: fakeWorkspace() });
    t.runtime.write('go\r');
    await showsAll(t.term, `reply ${SHOWN} end`);
    await showsAll(t.term, `Ran echo ${SHOWN}`);
    await assertClean(t);
    t.runtime.abort();
  });

  test('an error message from the gateway', async () => {
    const body = JSON.stringify({ error: { message: `bad ${HOSTILE}`, type: 'invalid_request_error' } });
    const net = fakeFetch([{ status: 400, body, headers: { 'content-type': 'application/json' } }]);
    const t = await start({ fetch: net.fetch, env });
    t.runtime.write('hi\r');
    await showsAll(t.term, SHOWN);
    await assertClean(t);
    t.runtime.abort();
  });

  test('resumed history and the resume picker, from a session another writer stored', async () => {
    const sessionStore = memorySessionStore();
    const net = fakeFetch([
      { events: toolEvents(`said ${HOSTILE}`, [['c1', 'ls']]) },
      { events: textEvents(`end ${HOSTILE}`) },
    ]);
    const workspace = fakeWorkspace({ run: () => ({ stdout: `out ${HOSTILE}\n`, stderr: '', exitCode: 3 }) });
    const agent = await createFxAgent({ fetch: net.fetch, env, sessionStore, workspace });
    const session = await agent.createSession();
    await session.prompt(`ask ${HOSTILE}`).stopReason;
    await agent.close();

    const t = await start({ fetch: net.fetch, env, sessionStore, workspace, args: ['--resume', 'last'] });
    for (const line of [`ask ${SHOWN}`, `said ${SHOWN}`, `end ${SHOWN}`, `out ${SHOWN}`]) await showsAll(t.term, line);
    await assertClean(t);
    t.runtime.write('\x0f');
    await contains(t.term, `out ${SHOWN}`);
    t.runtime.write('\x0f');
    t.runtime.write('/resume\r');
    // The picker's title is the prompt's words: the C1 NEL inside counts as a space there.
    await until(t.term, (text) => text.replaceAll(' ', '').includes(`ask${SHOWN}`), { what: 'the picker' });
    t.runtime.write('\x1b');
    await new Promise((resolve) => setTimeout(resolve, 60));
    await assertClean(t);
    t.runtime.abort();
  });

  test('model ids and efforts from the catalog in the pickers', async () => {
    const catalog = {
      ...CATALOG,
      data: [
        ...CATALOG.data,
        {
          id: `test/m-${HOSTILE}`,
          type: 'language',
          released: 3,
          tags: ['tool-use', 'reasoning'],
          reasoning_options: [{ type: 'effort', values: [`hi-${HOSTILE}`] }],
        },
      ],
    };
    const net = fakeFetch([], { catalog });
    const t = await start({ fetch: net.fetch, env }, { cols: 140, rows: 30 });
    t.runtime.write('/models\r');
    await contains(t.term, `test/m-${SHOWN}`);
    t.runtime.write('\x1b');
    await new Promise((resolve) => setTimeout(resolve, 60));
    t.runtime.write('/model\r');
    await contains(t.term, `test/m-${SHOWN}`);
    t.runtime.write('\x1b');
    await new Promise((resolve) => setTimeout(resolve, 60));
    await assertClean(t);
    t.runtime.abort();
  });
});
