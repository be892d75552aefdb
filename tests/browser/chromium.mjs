// Launching Debian's Chromium (never a downloaded browser) headless with a fresh profile, and
// the static server it loads pages from. Shared by the browser tests.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { chromium } from 'playwright-core';

import { startServer } from '../../scripts/serve.mjs';

export const CHROMIUM = process.env.FX_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Launches Chromium headless on a fresh profile; resolves to `{ context, close() }` (close also
 * deletes the profile). `options` go to playwright's launchPersistentContext; `extraArgs` are
 * added to the command line (e.g. `--force-device-scale-factor=2` with `viewport: null` for a
 * real, not emulated, device pixel ratio).
 */
export async function launchChromium({ extraArgs = [], ...options } = {}) {
  const profile = await mkdtemp(join(tmpdir(), 'fx-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    ...options,
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      ...extraArgs,
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Starts the server and the browser; resolves to `{ url, page, pageErrors, close() }`.
 * `pageErrors` collects uncaught errors and console errors of the page.
 */
export async function openBrowser() {
  const server = await startServer(0);
  const { context, close } = await launchChromium();
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(10_000);
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(msg.text());
  });
  return {
    url: server.url,
    page,
    pageErrors,
    async close() {
      await close();
      await server.close();
    },
  };
}
