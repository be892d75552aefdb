// The try page under the dev gateway's Content-Security-Policy, in Chromium: loading the page,
// a demo turn with commands in just-bash, the transcript review, help, the key dialog, the
// import menu, "Ask first" with its approval panel, a resize and the session download must
// raise no CSP violation (`securitypolicyviolation` events and console CSP errors). The policy
// is checked to be the strict one and to be enforced (an inline script is refused).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { openTry, screenshot, type, waitForIdle, waitForScreen } from './try-support.mjs';

let t;
let page;
let policy;
const consoleCsp = [];

before(async () => {
  t = await openTry();
  page = await t.newPage();
  // Installed before any page script: every violation of the page and its workers' fetches.
  await page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__csp.push({
        directive: e.effectiveDirective,
        blocked: e.blockedURI,
        source: `${e.sourceFile}:${e.lineNumber}`,
        sample: e.sample,
      });
    });
  });
  page.on('console', (msg) => {
    if (/Content[- ]Security[- ]Policy/i.test(msg.text())) consoleCsp.push(msg.text());
  });
  const response = await page.goto(t.url);
  policy = response.headers()['content-security-policy'];
  await page.waitForFunction(() => window.__fxTry?.ready);
  await page.evaluate(() => window.__fxTry.ready);
  await waitForScreen(page, 'Run /help for commands');
});

after(async () => {
  await t?.close();
});

async function violations() {
  return { events: await page.evaluate(() => window.__csp), console: [...consoleCsp] };
}

async function assertNoViolations(what) {
  assert.deepEqual(await violations(), { events: [], console: [] }, `CSP violations ${what}`);
}

test('the page is sent with the strict policy', () => {
  assert.ok(policy, 'a content-security-policy header');
  const directives = Object.fromEntries(
    policy.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]),
  );
  assert.deepEqual(directives['default-src'], ["'self'"]);
  assert.deepEqual(directives['script-src'].slice(0, 2), ["'self'", "'wasm-unsafe-eval'"]);
  assert.ok(
    directives['script-src'].slice(2).every((v) => /^'sha256-[A-Za-z0-9+/=]+'$/.test(v)),
    'beyond self and wasm, only hashes (the inline import map)',
  );
  assert.equal(directives['connect-src'][0], "'self'");
  assert.deepEqual(directives['img-src'], ["'self'", 'data:']);
  assert.deepEqual(directives['object-src'], ["'none'"]);
  assert.equal(directives['style-src'][0], "'self'");
});

test('loading the page raises no violation', async () => {
  await assertNoViolations('while loading');
  assert.deepEqual(t.errors, []);
});

test('a demo turn, the transcript review and help raise no violation', async () => {
  await page.click('.suggestion[data-prompt="what is in this project?"]');
  await waitForScreen(page, 'This reply was scripted');
  await waitForIdle(page);
  await screenshot(page, 'try-csp-after-turn.png');
  await type(page, '\x0f');
  await waitForScreen(page, 'Esc Close');
  await type(page, '\x0f');
  await type(page, '/help\r');
  await waitForScreen(page, '/resume');
  await type(page, '\x1b');
  await page.waitForTimeout(100);
  await assertNoViolations('during a turn');
});

test('the key dialog, the import menu and the download raise no violation', async () => {
  await page.click('#paste-key');
  await page.waitForSelector('#key-dialog[open]');
  await page.fill('#key-input', 'vck_csp-test');
  await page.click('#key-cancel');
  await page.waitForSelector('#key-dialog', { state: 'hidden' });
  await page.click('#import');
  await page.waitForSelector('#import-menu:popover-open');
  await page.keyboard.press('Escape');
  const download = page.waitForEvent('download');
  await page.click('#download');
  await download;
  await assertNoViolations('in the header controls');
});

test('"Ask first", its approval panel and a resize raise no violation', async () => {
  await page.click('label:has(input[value="ask"])');
  await waitForScreen(page, 'Permissions: ask · fx asks before each command');
  await type(page, 'run echo csp\r');
  await waitForScreen(page, 'Permission needed');
  await type(page, '1');
  await waitForScreen(page, /Ran echo csp · exit 0/);
  await waitForIdle(page);
  await page.setViewportSize({ width: 700, height: 500 });
  await page.waitForTimeout(300);
  await assertNoViolations('with approvals and a resize');
  assert.deepEqual(t.errors, []);
});

test('the policy is enforced: an inline script is refused and reported', async () => {
  const ran = await page.evaluate(() => {
    const script = document.createElement('script');
    script.textContent = 'window.__inlineRan = true;';
    document.head.append(script);
    return window.__inlineRan === true;
  });
  assert.equal(ran, false);
  await page.waitForFunction(() => window.__csp.length > 0);
  const { events } = await violations();
  assert.deepEqual(
    events.map((e) => e.directive),
    ['script-src-elem'],
  );
});
