// The try page as a new user meets it, in Chromium (issue 19's defects, each driven and seen
// fixed): Enter in the key dialog uses the key; the toast after a key says what is true on a
// --demo server and on a real one; the empty terminal says where to type; the notice's × keeps
// clear of its text at every width; the Permissions label reads at 4.5:1; a download is named
// by the session's title and date, and there is none before a prompt; /status reads as labelled
// rows; the header links the examples home; the terminal shows no native scrollbar (Firefox drew
// its buttons as white squares). Screenshots: screenshots/try-<360|768|1280>.png.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { startDevGateway } from '../../examples/dev-gateway/server.mjs';
import { loadTry, openTry, screen, screenshot, storedSessions, type, waitForIdle, waitForScreen } from './try-support.mjs';

let t;
let page;

before(async () => {
  t = await openTry();
  page = await t.newPage();
  await loadTry(page, t.url);
  await waitForScreen(page, 'Run /help for commands');
});

after(async () => {
  await t?.close();
});

const wayIn = () => page.evaluate(() => window.__fxTry.state.wayIn);
const toastText = () => page.textContent('#toast');

/** Opens the key dialog and types `key` into it (a real keyboard). */
async function openKeyDialog(key) {
  await page.click('#paste-key');
  await page.waitForSelector('#key-dialog[open]');
  await page.keyboard.type(key);
}

test('the key dialog: Enter uses the key; Cancel and Esc drop it; an empty field does not close it', async () => {
  await openKeyDialog('vck_cancelled');
  await page.click('#key-cancel');
  await page.waitForSelector('#key-dialog', { state: 'hidden' });
  assert.equal(await wayIn(), 'none', 'Cancel dropped the key');

  await openKeyDialog('vck_escaped');
  await page.keyboard.press('Escape');
  await page.waitForSelector('#key-dialog', { state: 'hidden' });
  assert.equal(await wayIn(), 'none', 'Esc dropped the key');

  await page.click('#paste-key');
  await page.waitForSelector('#key-dialog[open]');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.getElementById('key-dialog').open), true, 'an empty key is not submitted');
  await page.keyboard.type('vck_entered');
  const starts = await page.evaluate(() => window.__fxTry.starts);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#key-dialog', { state: 'hidden' });
  await page.waitForFunction((n) => window.__fxTry.starts > n && window.__fxTry.runtime, starts);
  assert.equal(await wayIn(), 'key', 'Enter used the key');
  assert.equal(await page.evaluate(() => sessionStorage.getItem('fx.try.gatewayKey')), 'vck_entered');
});

test('on a --demo server the toast says replies stay scripted, as the header does', async () => {
  await page.waitForFunction(() => /Key saved/.test(document.getElementById('toast').textContent));
  const text = await toastText();
  assert.match(text, /This server runs with --demo, so replies stay scripted/);
  assert.doesNotMatch(text, /now talks to the AI Gateway/);
  assert.equal(await page.textContent('#source-label'), 'Scripted demo · offline');
  await page.click('#forget-key');
  await page.waitForFunction(() => window.__fxTry.state.wayIn === 'none');
});

test('on a server that forwards, the toast says fx now talks to the AI Gateway', async () => {
  // Passthrough (no server key); the upstream is a closed loopback port: nothing leaves.
  const real = await startDevGateway({ port: 0, demo: false, apiKey: '', upstream: 'http://127.0.0.1:9' });
  const other = await t.newPage();
  try {
    await loadTry(other, real.url);
    await other.click('#paste-key');
    await other.keyboard.type('vck_real');
    await other.keyboard.press('Enter');
    await other.waitForFunction(() => /Key saved/.test(document.getElementById('toast').textContent));
    assert.equal(await other.textContent('#toast'), 'Key saved for this tab. fx now talks to the AI Gateway with it.');
    assert.equal(await other.textContent('#source-label'), 'AI Gateway · your key');
  } finally {
    await other.close();
    await real.close();
  }
});

test('the empty terminal says where to type, beside the composer, until there is a prompt', async () => {
  const hint = () =>
    page.evaluate(() => {
      const el = document.getElementById('composer-hint');
      const term = window.__fxTry.term;
      const screenBox = document.querySelector('#terminal .xterm-screen').getBoundingClientRect();
      const rowHeight = screenBox.height / term.rows;
      const box = el.getBoundingClientRect();
      return {
        shown: !el.hidden && box.width > 0,
        text: el.textContent,
        // The hint's row on the terminal's grid, and the composer's.
        row: Math.round((box.top - screenBox.top) / rowHeight),
        cursorRow: term.buffer.active.cursorY,
        rightOfCursor: box.left >= screenBox.left + (term.buffer.active.cursorX + 1) * (screenBox.width / term.cols),
        describedBy: term.textarea.getAttribute('aria-describedby'),
      };
    });
  await type(page, '/clear\r');
  await page.waitForFunction(() => !document.getElementById('composer-hint').hidden);
  // The hint follows the composer once the cleared screen is painted: wait for that frame (up
  // to 5 s) rather than measure the one before it.
  let shown = await hint();
  for (let i = 0; i < 50 && shown.row !== shown.cursorRow; i += 1) {
    await page.waitForTimeout(100);
    shown = await hint();
  }
  assert.equal(shown.shown, true);
  assert.match(shown.text, /Type your prompt here and press Enter/);
  assert.equal(shown.row, shown.cursorRow, 'on the composer row');
  assert.ok(shown.rightOfCursor, 'after the cursor');
  assert.equal(shown.describedBy, 'terminal-help', 'the terminal input describes itself to screen readers');
  assert.match(await page.textContent('#terminal-help'), /Press Esc, then Tab, to leave the terminal/);

  await type(page, 'x');
  await page.waitForFunction(() => document.getElementById('composer-hint').hidden);
  await type(page, '\x7f');
  await page.waitForFunction(() => !document.getElementById('composer-hint').hidden);
  await type(page, '/help\r');
  await page.waitForFunction(() => document.getElementById('composer-hint').hidden);
  await type(page, '\x1b');
  await page.waitForFunction(() => !document.getElementById('composer-hint').hidden);
  await type(page, 'run echo first\r');
  await waitForScreen(page, /Ran echo first · exit 0/);
  await waitForIdle(page);
  assert.equal((await hint()).shown, false, 'gone once there is a prompt');
});

test("the notice's × never covers its text or suggestions, from 360 px up", async () => {
  const overlaps = [];
  for (const width of [360, 400, 500, 560, 700, 1000, 1180, 1280]) {
    await page.setViewportSize({ width, height: 720 });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    overlaps.push(
      ...(await page.evaluate((w) => {
        const close = document.getElementById('demo-notice-close').getBoundingClientRect();
        const parts = [...document.querySelectorAll('#demo-notice strong, #demo-notice-text, #demo-notice .suggestion, #demo-notice .try-label')];
        return parts
          .filter((el) => {
            // Each line box of the text, not just its bounding box.
            const rects = el.getClientRects();
            return [...rects].some((r) => r.left < close.right && r.right > close.left && r.top < close.bottom && r.bottom > close.top);
          })
          .map((el) => `${w}px: ${el.id || el.className || el.tagName}`);
      }, width)),
    );
  }
  assert.deepEqual(overlaps, []);
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('the Permissions label reads at 4.5:1 or more against the header', async () => {
  const ratio = await page.evaluate(() => {
    const rgb = (value) => value.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number);
    const luminance = (c) => {
      const [r, g, b] = c.map((v) => {
        const s = v / 255;
        return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const text = luminance(rgb(getComputedStyle(document.querySelector('.segmented-label .text')).color));
    const bar = luminance(rgb(getComputedStyle(document.querySelector('.bar')).backgroundColor));
    return (Math.max(text, bar) + 0.05) / (Math.min(text, bar) + 0.05);
  });
  assert.ok(ratio >= 4.5, `contrast ${ratio.toFixed(2)}:1`);
});

test('no download before a prompt: the header button and /export say why; nothing is saved', async () => {
  await type(page, '/new\r');
  await waitForScreen(page, 'Session: started a new session');
  await page.waitForFunction(() => window.__fxTry.runtime?.sessionId);
  const before = (await storedSessions(page)).length;
  let downloads = 0;
  page.on('download', () => {
    downloads += 1;
  });
  await page.click('#download');
  await page.waitForFunction(() => /Nothing to download yet/.test(document.getElementById('toast').textContent));
  assert.notEqual(await page.getAttribute('#toast', 'data-tone'), 'error', 'a note, not an error');
  await type(page, '/export\r');
  // The session is stored with its first prompt: the terminal knows there is nothing yet.
  await waitForScreen(page, /Export: nothing to export yet: a session is saved with its first prompt/);
  await page.waitForTimeout(300);
  assert.equal(downloads, 0, 'nothing was offered');
  assert.equal((await storedSessions(page)).length, before, 'no session was stored by trying');
});

test('a download is named by the session title and date; its folder keeps the session id', async () => {
  await type(page, 'run echo named-download\r');
  await waitForScreen(page, /Ran echo named-download · exit 0/);
  await waitForIdle(page);
  const id = await page.evaluate(() => window.__fxTry.runtime.sessionId);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  const today = await page.evaluate(() => {
    const d = new Date();
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  });
  assert.equal(download.suggestedFilename(), `fx-run-echo-named-download-${today}.zip`);
  assert.match(await toastText(), new RegExp(`Downloaded fx-run-echo-named-download-${today}\\.zip.*~/\\.fx/sessions/${id}/.*fx --resume ${id}`));

  const names = await page.evaluate(() => {
    const at = new Date(2025, 0, 31, 12).getTime();
    const name = (title) => window.__fxTry.downloadName({ title, updatedAtMs: at });
    return [
      name('Fix the "tests" — now!'),
      name('Café über 東京'),
      name(''),
      name('a very long title that goes on and on well past what a file name should hold'),
      window.__fxTry.downloadName({ title: 'no date' }),
    ];
  });
  assert.deepEqual(names, [
    'fx-fix-the-tests-now-2025-01-31.zip',
    'fx-café-über-東京-2025-01-31.zip',
    'fx-session-2025-01-31.zip',
    'fx-a-very-long-title-that-goes-on-and-on-well-past-2025-01-31.zip',
    'fx-no-date.zip',
  ]);
});

test('/status reads as labelled rows, not key=value', async () => {
  await type(page, '/status\r');
  const shown = await waitForScreen(page, '● Status');
  const block = shown.slice(shown.lastIndexOf('● Status')).split('\n\n')[0];
  for (const row of [/Model +fx-demo\/scripted/, /Permissions +auto: commands run without asking/, /Sign-in +none: \/login signs in/, /Workspace +connected/, /Version +\d+\.\d+\.\d+/]) {
    assert.match(block, row, block);
  }
  assert.doesNotMatch(block, /\w=\w/, block);
});

test('the header links the examples home, which links every example', async () => {
  assert.equal(await page.getAttribute('#examples', 'href'), '/examples/');
  const other = await t.newPage();
  try {
    await other.goto(t.url);
    await other.click('#examples');
    await other.waitForURL(/\/examples\/$/);
    assert.equal(await other.textContent('h1'), 'fx-wasm examples');
    const links = await other.$$eval('.card h2 a', (as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
    assert.deepEqual(links, [
      ['Try page', '/'],
      ['Agent', '/examples/agent/'],
      ['Bots', '/examples/bots/'],
      ['Session viewer', '/examples/viewer/'],
    ]);
    for (const [, href] of links) {
      const res = await fetch(new URL(href, t.url));
      assert.equal(res.status, 200, href);
      await res.arrayBuffer();
    }
  } finally {
    await other.close();
  }
});

test('the terminal has no native scrollbar beside its own (the white squares in Firefox)', async () => {
  const gutter = await page.evaluate(() => {
    const viewport = document.querySelector('#terminal .xterm-viewport');
    return viewport.offsetWidth - viewport.clientWidth;
  });
  assert.equal(gutter, 0);
});

test('screenshots at 360, 768 and 1280 px', async () => {
  await type(page, '/clear\r');
  await page.waitForFunction(() => !document.getElementById('composer-hint').hidden);
  for (const width of [360, 768, 1280]) {
    await page.setViewportSize({ width, height: 720 });
    await page.waitForTimeout(250);
    await screenshot(page, `try-${width}.png`);
  }
  assert.match(await screen(page), /┃/);
  assert.deepEqual(t.errors, []);
});
