// What the try page's terminal draws, measured in its pixels (Chromium, real xterm.js, Debian's
// fonts), at device pixel ratio 1 and 2 (a real ratio from --force-device-scale-factor, not
// emulation): underscores are visible (`snake_case_name`, not "snake case name") and the box
// around a code block is joined (its vertical strokes run unbroken from row to row), with the
// WebGL renderer and with the DOM renderer (the fallback without WebGL), each at both ratios.
// Screenshots: screenshots/try-glyphs-dpr{1,2}.png and -dpr{1,2}-dom.png.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { loadTry, openTry, screenshot, type, waitForIdle, waitForScreen } from './try-support.mjs';

const LINES = ['snake_case_name', 'FX_GATEWAY_HTTP_ERROR', '__init__ a_b_c'];

/**
 * Finds, in the terminal buffer, the code box the demo drew around the output: the rows of
 * LINES (in `│ … │`) and the rows of `┌` and `└` above and below. Returns cell geometry in CSS
 * pixels and the positions to measure.
 */
async function layout(page) {
  return page.evaluate((lines) => {
    const { term } = window.__fxTry;
    const buffer = term.buffer.active;
    const text = [];
    for (let y = 0; y < term.rows; y += 1) text.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '');
    const rows = lines.map((needle) => text.findIndex((row) => row.includes(`│ ${needle}`)));
    const screen = document.querySelector('#terminal .xterm-screen').getBoundingClientRect();
    const cell = { width: screen.width / term.cols, height: screen.height / term.rows };
    const underscores = [];
    rows.forEach((y, i) => {
      const x0 = text[y].indexOf(lines[i]);
      [...lines[i]].forEach((c, k) => {
        if (c === '_') underscores.push({ row: y, col: x0 + k });
      });
    });
    const left = text[rows[0]].indexOf('│');
    return { text, rows, left, top: rows[0] - 1, bottom: rows.at(-1) + 1, corner: text[rows[0] - 1][left], screen: { x: screen.x, y: screen.y }, cell, underscores, dpr: devicePixelRatio };
  }, LINES);
}

/** Measures the screenshot (PNG) in the page: ink in each underscore cell, gaps in the stroke. */
function measure(page, png, geometry) {
  return page.evaluate(
    async ({ base64, g }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const ctx = canvas.getContext('2d');
      ctx.drawImage(bitmap, 0, 0);
      const { data, width } = ctx.getImageData(0, 0, bitmap.width, bitmap.height);
      const scale = bitmap.width / innerWidth;
      const lum = (x, y) => {
        const i = (Math.round(y) * width + Math.round(x)) * 4;
        return 0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2];
      };
      const cellBox = (row, col) => ({
        x: (g.screen.x + col * g.cell.width) * scale,
        y: (g.screen.y + row * g.cell.height) * scale,
        w: g.cell.width * scale,
        h: g.cell.height * scale,
      });
      // Ink of an underscore: lit pixels in its cell (the glyph sits in the lower part).
      const ink = g.underscores.map(({ row, col }) => {
        const b = cellBox(row, col);
        let lit = 0;
        for (let y = b.y + b.h * 0.4; y < b.y + b.h; y += 1) for (let x = b.x + 1; x < b.x + b.w - 1; x += 1) if (lum(x, y) > 60) lit += 1;
        return lit;
      });
      // The box's left stroke: its brightest pixel column in the middle of the first `│` cell,
      // then every pixel row from the middle of `┌` to the middle of `└` must be lit there.
      const first = cellBox(g.rows[0], g.left);
      let strokeX = first.x;
      let best = -1;
      for (let x = first.x; x < first.x + first.w; x += 1) {
        const v = lum(x, first.y + first.h / 2);
        if (v > best) {
          best = v;
          strokeX = x;
        }
      }
      const from = cellBox(g.top, g.left).y + cellBox(g.top, g.left).h / 2 + 2 * scale;
      const to = cellBox(g.bottom, g.left).y + cellBox(g.bottom, g.left).h / 2 - 2 * scale;
      // A gap: the stroke falls back most of the way to the background.
      const background = lum(first.x + first.w / 2 + 2 * scale, first.y + 1);
      const floor = background + (best - background) * 0.3;
      const gaps = [];
      let weakest = best;
      for (let y = Math.ceil(from); y < to; y += 1) {
        const v = Math.max(lum(strokeX - 1, y), lum(strokeX, y), lum(strokeX + 1, y));
        weakest = Math.min(weakest, v);
        if (v < floor) gaps.push(Math.round(y));
      }
      return { ink, gaps, strokeLum: best, background, weakest, scale };
    },
    { base64: png.toString('base64'), g: geometry },
  );
}

for (const [dpr, renderer] of [
  [1, 'webgl'],
  [2, 'webgl'],
  [1, 'dom'],
  [2, 'dom'],
]) {
  describe(`device pixel ratio ${dpr}, ${renderer} renderer`, () => {
    let t;
    after(async () => {
      await t?.close();
    });

    test('underscores are visible and a code box is joined', async () => {
      t = await openTry(
        dpr === 1
          ? { viewport: { width: 1100, height: 760 } }
          : { viewport: null, extraArgs: ['--force-device-scale-factor=2', '--window-size=1100,760'] },
      );
      const page = await t.newPage();
      await loadTry(page, renderer === 'dom' ? `${t.url}?renderer=dom` : t.url);
      assert.equal(await page.evaluate(() => devicePixelRatio), dpr);
      assert.equal(await page.evaluate(() => window.__fxTry.renderer), renderer);
      await type(page, `run printf '${LINES.join('\\n')}\\n'\r`);
      await waitForScreen(page, `│ ${LINES.at(-1)}`);
      await waitForIdle(page);
      // Let the renderer settle (xterm draws on animation frames).
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const g = await layout(page);
      assert.ok(g.rows.every((r) => r > 0), `the code box is on screen:\n${g.text.join('\n')}`);
      assert.equal(g.corner, '┌');
      const png = await page.screenshot();
      await screenshot(page, `try-glyphs-dpr${dpr}${renderer === 'dom' ? '-dom' : ''}.png`);
      const m = await measure(page, png, g);
      assert.ok(m.ink.every((lit) => lit > 0), `every underscore has ink: ${JSON.stringify(m.ink)}`);
      assert.ok(m.strokeLum - m.background > 25, `the stroke is found (${m.strokeLum.toFixed(0)} on ${m.background.toFixed(0)})`);
      assert.deepEqual(m.gaps, [], `the box's stroke has no gaps (stroke ${m.strokeLum.toFixed(0)}, weakest ${m.weakest.toFixed(0)}, background ${m.background.toFixed(0)})`);
      assert.deepEqual(t.errors, []);
    });
  });
}
