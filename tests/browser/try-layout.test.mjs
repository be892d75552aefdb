// The try page at the widths people use (360, 400–600, 768–870, 1,000–1,920 px), in Chromium: every
// header and notice control can be reached — on screen, not cut off, not under another — either
// directly or through the "More" menu; the page never scrolls sideways. Screenshots of each
// width land in screenshots/ (try-width-<px>.png, and with the menu open).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { loadTry, openTry, screenshot, waitForScreen } from './try-support.mjs';

let t;
let page;

before(async () => {
  t = await openTry({ viewport: { width: 1600, height: 900 } });
  page = await t.newPage();
  await loadTry(page, t.url);
  await waitForScreen(page, 'Run /help for commands');
});

after(async () => {
  await t?.close();
});

/**
 * Each control: how to find it in the header (or notice), and in the More menu when the header
 * has no room for it. `state` limits a control to one way in.
 */
const CONTROLS = [
  { name: 'Sign in with Vercel', direct: '#sign-in', menu: '#more-menu [data-forward="sign-in"]', state: 'none' },
  { name: 'Paste an AI Gateway key', direct: '#paste-key', menu: '#more-menu [data-forward="paste-key"]', state: 'none' },
  { name: 'Forget key', direct: '#forget-key', menu: '#more-menu [data-forward="forget-key"]', state: 'key' },
  { name: 'Download', direct: '#download', menu: '#more-menu [data-forward="download"]' },
  { name: 'Examples', direct: '#examples', menu: '#more-menu .menu-link' },
  { name: 'Screen reader mode', direct: '#screen-reader', menu: '#screen-reader-item' },
  { name: 'Import', direct: '#import', menu: '#more-menu [data-forward="import-zip"]' },
  { name: 'Permissions: ask', direct: 'label:has(input[value="ask"])' },
  { name: 'Permissions: auto', direct: 'label:has(input[value="code"])' },
  { name: 'Try: what is in this project?', direct: '.suggestion >> nth=0' },
  { name: 'Try: run cat src/tasks.js', direct: '.suggestion >> nth=1' },
  { name: 'Hide the demo notice', direct: '#demo-notice-close' },
];

/** Whether the element is on screen, not cut off, and the topmost thing at its centre. */
async function reachable(selector) {
  const handle = await page.$(selector);
  if (!handle) return false;
  return handle.evaluate((el) => {
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    if (style.display === 'none' || style.visibility === 'hidden' || box.width < 8 || box.height < 8) return false;
    if (box.left < 0 || box.top < 0 || box.right > innerWidth + 0.5 || box.bottom > innerHeight + 0.5) return false;
    // Cut off by an ancestor (overflow) or covered: the point at its centre is not it.
    const hit = document.elementFromPoint((box.left + box.right) / 2, (box.top + box.bottom) / 2);
    return hit !== null && (el === hit || el.contains(hit));
  });
}

async function reach(control) {
  if (await reachable(control.direct)) return 'direct';
  if (!control.menu || !(await reachable('#more'))) return null;
  await page.click('#more');
  const found = await reachable(control.menu);
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.getElementById('more-menu')?.matches(':popover-open'));
  return found ? 'menu' : null;
}

async function layoutAt(width) {
  await page.setViewportSize({ width, height: 760 });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  return page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth,
    header: document.querySelector('.bar').getBoundingClientRect().height,
    // What the header holds past its own width (cut off at the right edge).
    headerOverflow: document.querySelector('.bar').scrollWidth - document.querySelector('.bar').clientWidth,
    cols: window.__fxTry.term.cols,
  }));
}

const WIDTHS = [360, 400, 450, 500, 560, 600, 700, 760, 768, 800, 860, 870, 1000, 1024, 1100, 1180, 1181, 1280, 1366, 1440, 1520, 1600, 1700, 1850, 1920];

test('every control is reachable at every width from 360 px up, and the page never scrolls sideways', async () => {
  const wayIn = await page.evaluate(() => document.getElementById('way-in').dataset.state);
  assert.equal(wayIn, 'none');
  const missing = [];
  for (const width of WIDTHS) {
    const layout = await layoutAt(width);
    assert.ok(layout.scrollWidth <= layout.innerWidth, `${width}px: scrolls sideways (${layout.scrollWidth})`);
    assert.ok(layout.header <= 56, `${width}px: a slim header (${layout.header}px)`);
    assert.equal(layout.headerOverflow, 0, `${width}px: the header fits its width`);
    assert.ok(layout.cols >= 40, `${width}px: the terminal keeps 40 columns or more (${layout.cols})`);
    for (const control of CONTROLS.filter((c) => !c.state || c.state === wayIn)) {
      if (!(await reach(control))) missing.push(`${width}px: ${control.name}`);
    }
    if ([360, 800, 1600].includes(width)) await screenshot(page, `try-width-${width}.png`);
  }
  assert.deepEqual(missing, []);
});

test('the More menu holds what the header has no room for (360 px), with a key in use too', async () => {
  await layoutAt(360);
  await page.click('#more');
  await page.waitForFunction(() => document.getElementById('more-menu').matches(':popover-open'));
  await screenshot(page, 'try-width-360-menu.png');
  await page.keyboard.press('Escape');
  // A pasted key: its Forget key is reachable as well.
  await page.click('#more');
  await page.click('#more-menu [data-forward="paste-key"]');
  await page.fill('#key-input', 'vck_layout-test');
  await page.click('#key-use');
  await page.waitForFunction(() => document.getElementById('way-in').dataset.state === 'key');
  await page.evaluate(() => window.__fxTry.ready);
  for (const width of [360, 800, 1600]) {
    await layoutAt(width);
    assert.ok(await reach(CONTROLS.find((c) => c.name === 'Forget key')), `${width}px: Forget key`);
  }
  await layoutAt(360);
  await page.click('#more');
  await page.click('#more-menu [data-forward="forget-key"]');
  await page.waitForFunction(() => document.getElementById('way-in').dataset.state === 'none');
  assert.deepEqual(t.errors, []);
});
