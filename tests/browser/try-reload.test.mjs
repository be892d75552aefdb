// What a reload of the try page costs: the dev gateway sends every file with an ETag and gzip
// (examples/dev-gateway/static.mjs), so the first visit moves the package compressed and a
// reload gets 304s for everything unchanged. Counted in Chromium from the bytes the network
// layer received (CDP's encodedDataLength: headers and body as they came over the wire);
// the figures are printed as test diagnostics.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { loadTry, openTry } from './try-support.mjs';

let app;
let page;
let cdp;
const responses = new Map();
let bytes = 0; // received since the visit began

before(async () => {
  app = await openTry();
  page = await app.newPage();
  cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  cdp.on('Network.responseReceived', ({ requestId, response }) => {
    responses.set(requestId, { url: response.url, encoding: response.headers['content-encoding'] ?? '', bytes: 0 });
  });
  cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
    bytes += encodedDataLength;
    const response = responses.get(requestId);
    if (response) response.bytes = encodedDataLength;
  });
});

after(async () => {
  await app?.close();
});

/** Loads (or reloads) the page until fx is interactive; resolves to `{ bytes, responses }`. */
async function visit(reload) {
  bytes = 0;
  responses.clear();
  if (reload) {
    await page.reload();
    await page.waitForFunction(() => window.__fxTry?.ready);
    await page.evaluate(() => window.__fxTry.ready);
  } else {
    await loadTry(page, app.url);
  }
  // just-bash arrives after the page is ready (it is imported beside fx, not before it): wait
  // for that import too, so both visits fetch the same files.
  await page.evaluate(() => import('just-bash').then(() => true));
  // The last responses' loadingFinished may trail the page's own readiness by a moment.
  await page.waitForTimeout(300);
  return { bytes, responses: [...responses.values()] };
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

test('a reload moves a small fraction of the first visit: the package comes back as 304s', async (t) => {
  const first = await visit(false);
  const again = await visit(true);
  t.diagnostic(`first visit: ${kib(first.bytes)} in ${first.responses.length} responses`);
  t.diagnostic(`reload: ${kib(again.bytes)} in ${again.responses.length} responses`);
  const wasm = first.responses.filter((r) => r.url.endsWith('.wasm'));
  assert.ok(wasm.length > 0, 'the page loaded WebAssembly');
  for (const r of wasm) assert.equal(r.encoding, 'gzip', `${r.url} came gzipped`);
  // A 304 is its headers only (Chromium reports a revalidated fetch or navigation with the
  // cached 200's status, so the bytes on the wire are what tells).
  const resent = again.responses.filter((r) => r.bytes > 1024 && !r.url.includes('/dev-gateway/status'));
  assert.deepEqual(resent.map((r) => `${r.url}: ${r.bytes} bytes`), [], 'every static file was revalidated, none sent again');
  assert.ok(again.bytes < first.bytes / 10, `the reload moved ${kib(again.bytes)} against ${kib(first.bytes)}`);
  assert.deepEqual(app.errors, []);
});
