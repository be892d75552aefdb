// Shared by the try-page tests: the dev gateway in demo mode on a free loopback port (so no
// request leaves the machine), Chromium on a fresh profile, and helpers that read the terminal
// screen out of xterm's buffer, type into it, and wait for text.

import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { startDevGateway } from '../../examples/dev-gateway/server.mjs';
import { launchChromium } from './chromium.mjs';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SCREENSHOTS = join(root, 'screenshots');

/**
 * Starts the dev gateway (demo mode unless `gateway` options say otherwise) and Chromium.
 * Resolves to `{ url, gateway, context, errors, newPage(), close() }`; `errors` collects console
 * errors and uncaught exceptions of every page opened with `newPage`.
 */
export async function openTry({ gateway: gatewayOptions = {}, viewport = { width: 1280, height: 800 }, extraArgs = [] } = {}) {
  const gateway = await startDevGateway({ port: 0, demo: true, demoDelayMs: 4, ...gatewayOptions });
  const browser = await launchChromium({ viewport, acceptDownloads: true, extraArgs });
  const errors = [];
  const watch = (page) => {
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(`console: ${msg.text()} [${msg.location()?.url ?? ''}]`);
    });
    return page;
  };
  let first = browser.context.pages()[0] ?? null;
  return {
    url: gateway.url,
    gateway,
    context: browser.context,
    errors,
    /** A page of the shared context (the first call reuses the tab Chromium opened). */
    async newPage() {
      const page = first ?? (await browser.context.newPage());
      first = null;
      return watch(page);
    },
    async close() {
      await browser.close();
      await gateway.close();
    },
  };
}

/** Opens the try page in `page` and waits until fx is interactive. */
export async function loadTry(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => window.__fxTry?.ready);
  await page.evaluate(() => window.__fxTry.ready);
}

export function screen(page) {
  return page.evaluate(() => window.__fxTry.screenText());
}

/** Waits until the terminal shows `needle` (a string or a RegExp source); returns the screen. */
export async function waitForScreen(page, needle, { timeout = 15_000 } = {}) {
  const pattern = needle instanceof RegExp ? { source: needle.source, flags: needle.flags } : null;
  try {
    await page.waitForFunction(
      ([text, re]) => {
        const shown = window.__fxTry?.screenText?.() ?? '';
        return re ? new RegExp(re.source, re.flags).test(shown) : shown.includes(text);
      },
      [needle instanceof RegExp ? null : needle, pattern],
      { timeout, polling: 50 },
    );
  } catch (error) {
    const shown = await screen(page).catch(() => '(no screen)');
    throw new Error(`the terminal never showed ${needle}:\n${shown}`, { cause: error });
  }
  return screen(page);
}

/** Types `text` into the terminal as if on the keyboard (xterm's own input path). */
export async function type(page, text) {
  await page.evaluate((data) => window.__fxTry.term.input(data), text);
}

const ACTIVITY = /(Thinking|Running .*|Cancelling|Waiting for approval) \(\d+s\)/;

/** Waits until no turn is running (the footer's activity row is gone). */
export async function waitForIdle(page, { timeout = 15_000 } = {}) {
  await page.waitForFunction(
    (source) => !new RegExp(source).test(window.__fxTry.screenText().trimEnd().split('\n').slice(-12).join('\n')),
    ACTIVITY.source,
    { polling: 100, timeout },
  );
}

/** The stored sessions of the page's IndexedDB store, each as `{ id, view }`. */
export function storedSessions(page) {
  return page.evaluate(async () => {
    const fx = await import('/pkg/index.js');
    const list = await window.__fxTry.sessionStore.list();
    const out = [];
    for (const { id } of list) {
      const record = await window.__fxTry.sessionStore.load(id);
      const view = await fx.readSession(record.bytes);
      out.push({ id, view: JSON.parse(JSON.stringify(view)) });
    }
    return out;
  });
}

export async function screenshot(page, name) {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, name) });
}
