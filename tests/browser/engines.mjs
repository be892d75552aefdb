// The three browser engines behind one small driver, so a suite is written once and runs in each:
//
// - Chromium: Debian's /usr/bin/chromium through playwright-core (chromium.mjs);
// - Firefox: Debian's /usr/bin/firefox-esr through puppeteer-core over WebDriver BiDi;
// - WebKit: WebKitGTK's MiniBrowser through /usr/bin/WebKitWebDriver and selenium-webdriver,
//   on its own Xvfb display (WebKitGTK needs one; without DISPLAY the session hangs).
//
// A page offers `goto`, `reload`, `evaluate(fn, arg)` (fn's source runs in the page; arg and the
// result cross as JSON), `waitFor`, `errors()` and `close`, and real input: `click(selector)`,
// `press(key, { shift })` (`Enter`, `Escape`, `Tab`, `Backspace`) and `type(text)`. FX_ENGINES=chromium,firefox narrows
// the engines a run uses (default: all three).

import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startServer } from '../../scripts/serve.mjs';
import { launchChromium } from './chromium.mjs';

export const FIREFOX = process.env.FX_FIREFOX ?? '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER = process.env.FX_WEBKIT_DRIVER ?? '/usr/bin/WebKitWebDriver';
export const MINIBROWSER = process.env.FX_MINIBROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

const ALL = ['chromium', 'firefox', 'webkit'];
export const ENGINES = (process.env.FX_ENGINES ?? ALL.join(','))
  .split(',')
  .map((name) => name.trim())
  .filter((name) => ALL.includes(name));

/** The expression that runs `fn(arg)` in a page and gives `{ value }` or `{ error }` as JSON. */
function expression(fn, arg) {
  return `(async () => {
  try {
    const value = await (${fn.toString()})(${JSON.stringify(arg ?? null)});
    return JSON.stringify({ value: value === undefined ? null : value });
  } catch (error) {
    return JSON.stringify({ error: String(error?.name) + ': ' + String(error?.message) + '\\n' + String(error?.stack ?? '') });
  }
})()`;
}

function unwrap(engine, text) {
  const { value, error } = JSON.parse(text);
  if (error !== undefined) throw new Error(`in ${engine}: ${error}`);
  return value;
}

// A WebDriver command that has not answered after this long has hung (MiniBrowser stuck): it fails
// with an error naming it instead of holding the run until CI's limit.
const COMMAND_DEADLINE_MS = 60_000;
// A page script (evaluate) that has not settled after this long fails the same way.
const SCRIPT_DEADLINE_MS = 120_000;

/** `promise`, or an error naming `what` once `ms` have passed. */
function withDeadline(promise, ms, what, engine = 'webkit') {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${engine}: ${what} did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The start of a page function's source, to name it in an error. */
function sourceOf(fn) {
  return String(fn).replace(/\s+/g, ' ').slice(0, 100);
}

/** Engine-neutral helpers on top of a page's `evaluate`. */
function withHelpers(page) {
  return Object.assign(page, {
    /** Polls `fn(arg)` in the page until it returns a truthy value; resolves to it. */
    async waitFor(fn, arg, { timeout = 15_000, interval = 50, what = 'a page condition' } = {}) {
      const deadline = Date.now() + timeout;
      for (;;) {
        const value = await page.evaluate(fn, arg);
        if (value) return value;
        if (Date.now() > deadline) throw new Error(`${page.engine}: timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, interval));
      }
    },
  });
}

// ---- Chromium (playwright-core) and Firefox (puppeteer-core over WebDriver BiDi) ----

/**
 * A page of a driver with error events and a `path` screenshot option (playwright-core and
 * puppeteer-core agree on this much).
 */
function eventPage(engine, raw) {
  const errors = [];
  raw.setDefaultTimeout(15_000);
  raw.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  raw.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  return withHelpers({
    engine,
    goto: (url) => raw.goto(url),
    reload: () => raw.reload(),
    click: (selector) => raw.click(selector),
    async press(key, { shift = false } = {}) {
      if (shift) await raw.keyboard.down('Shift');
      await raw.keyboard.press(key);
      if (shift) await raw.keyboard.up('Shift');
    },
    type: (text) => raw.keyboard.type(text),
    evaluate: async (fn, arg) =>
      unwrap(engine, await withDeadline(raw.evaluate(expression(fn, arg)), SCRIPT_DEADLINE_MS, `a page script (${sourceOf(fn)})`, engine)),
    errors: async () => [...errors],
    screenshot: (path) => raw.screenshot({ path }),
    close: () => raw.close(),
  });
}

/** `newPage()` that first gives the tab the browser opened with. */
function pages(engine, first, open) {
  let initial = first;
  return async () => {
    const raw = initial ?? (await open());
    initial = null;
    return eventPage(engine, raw);
  };
}

async function launchChromiumEngine() {
  const { context, close } = await launchChromium();
  return { newPage: pages('chromium', context.pages()[0] ?? null, () => context.newPage()), close };
}

async function launchFirefoxEngine() {
  const { default: puppeteer } = await import('puppeteer-core');
  const profile = await mkdtemp(join(tmpdir(), 'fx-firefox-'));
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    userDataDir: profile,
    protocolTimeout: 60_000,
  });
  return {
    newPage: pages('firefox', (await browser.pages())[0] ?? null, () => browser.newPage()),
    async close() {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

// ---- WebKit (selenium-webdriver → WebKitWebDriver → MiniBrowser, on Xvfb) ----

/** Starts Xvfb on the first free display; resolves to `{ display, stop() }`. */
function startXvfb() {
  return new Promise((resolve, reject) => {
    const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let number = '';
    let stderr = '';
    xvfb.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    xvfb.stdio[3].on('data', (chunk) => {
      number += chunk;
      if (number.includes('\n')) resolve({ display: `:${number.trim()}`, stop: () => xvfb.kill() });
    });
    xvfb.once('error', reject);
    xvfb.once('exit', (code) => reject(new Error(`Xvfb exited (${code}) before it was ready: ${stderr}`)));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startWebKitDriver(display) {
  // WebKitWebDriver takes no port 0: a free port, retried if another process takes it first.
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const port = await freePort();
    const driver = spawn(WEBKIT_DRIVER, [`--port=${port}`], {
      env: { ...process.env, DISPLAY: display },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let exited = false;
    driver.once('exit', () => {
      exited = true;
    });
    const url = `http://127.0.0.1:${port}/`;
    for (let i = 0; i < 100 && !exited; i += 1) {
      try {
        await fetch(`${url}status`);
        return { url, stop: () => driver.kill() };
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    driver.kill();
  }
  throw new Error(`${WEBKIT_DRIVER} did not start`);
}

/**
 * Runs `task` after every earlier one (WebDriver commands act on one current window at a time),
 * failing it when it has not answered within COMMAND_DEADLINE_MS.
 */
function serial() {
  let tail = Promise.resolve();
  return (task) => {
    const run = tail.then(() => withDeadline(task(), COMMAND_DEADLINE_MS, 'a WebDriver command'));
    tail = run.catch(() => {});
    return run;
  };
}

// In the page: the errors recorded since the last harvest (tests/browser/page-errors.js).
const HARVEST = 'const e = window.__fxPageErrors ?? []; window.__fxPageErrors = []; return e;';

async function launchWebKitEngine() {
  const { Builder, By, Key } = await import('selenium-webdriver');
  const KEYS = { Enter: Key.ENTER, Escape: Key.ESCAPE, Tab: Key.TAB, Backspace: Key.BACK_SPACE };
  const xvfb = await startXvfb();
  let server;
  let driver;
  try {
    server = await startWebKitDriver(xvfb.display);
    driver = await withDeadline(
      new Builder()
        .usingServer(server.url)
        .withCapabilities({
          browserName: 'MiniBrowser',
          'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
        })
        .build(),
      COMMAND_DEADLINE_MS,
      'opening a WebKitWebDriver session',
    );
    await driver.manage().setTimeouts({ script: 60_000, pageLoad: 30_000 });
  } catch (error) {
    server?.stop();
    xvfb.stop();
    throw error;
  }
  const inOrder = serial();
  let current = await driver.getWindowHandle();
  let jobs = 0;
  const wrap = (handle) => {
    const errors = [];
    // Every command first makes this page's window the current one.
    const onPage = (task) =>
      inOrder(async () => {
        if (current !== handle) {
          await driver.switchTo().window(handle);
          current = handle;
        }
        return task();
      });
    const harvest = async () => {
      const found = await driver.executeScript(HARVEST).catch(() => []);
      errors.push(...(Array.isArray(found) ? found : []));
    };
    return withHelpers({
      engine: 'webkit',
      goto: (url) =>
        onPage(async () => {
          await harvest();
          await driver.get(url);
        }),
      reload: () =>
        onPage(async () => {
          await harvest();
          await driver.navigate().refresh();
        }),
      click: (selector) => onPage(async () => (await driver.findElement(By.css(selector))).click()),
      press: (key, { shift = false } = {}) =>
        onPage(async () => {
          const code = KEYS[key];
          if (!code) throw new Error(`webkit: no WebDriver key for ${key}`);
          const actions = driver.actions({ async: true });
          if (shift) await actions.keyDown(Key.SHIFT).sendKeys(code).keyUp(Key.SHIFT).perform();
          else await actions.sendKeys(code).perform();
        }),
      type: (text) => onPage(() => driver.actions({ async: true }).sendKeys(text).perform()),
      // The script starts in the page and is polled for, so two pages can run at the same time
      // (a WebDriver session runs one command, in one window, at a time).
      async evaluate(fn, arg) {
        jobs += 1;
        const id = `job${jobs}`;
        const deadline = Date.now() + SCRIPT_DEADLINE_MS;
        await onPage(() =>
          driver.executeScript(
            `const jobs = (window.__fxJobs ??= {}); jobs[${JSON.stringify(id)}] = null;
             ${expression(fn, arg)}.then((text) => { jobs[${JSON.stringify(id)}] = text; });`,
          ),
        );
        for (;;) {
          const text = await onPage(() =>
            driver.executeScript(
              `const jobs = window.__fxJobs; const id = ${JSON.stringify(id)};
               if (!jobs || !(id in jobs)) return JSON.stringify({ error: 'Error: the page navigated away' });
               const text = jobs[id]; if (text !== null) delete jobs[id]; return text;`,
            ),
          );
          if (text !== null) return unwrap('webkit', text);
          if (Date.now() > deadline) {
            throw new Error(`webkit: a page script (${sourceOf(fn)}) did not settle within ${SCRIPT_DEADLINE_MS / 1000} s`);
          }
          await new Promise((resolve) => setTimeout(resolve, 15));
        }
      },
      errors: () =>
        onPage(async () => {
          await harvest();
          return [...errors];
        }),
      async screenshot(path) {
        const { writeFile } = await import('node:fs/promises');
        const png = await onPage(() => driver.takeScreenshot());
        await writeFile(path, Buffer.from(png, 'base64'));
      },
      close: () =>
        onPage(async () => {
          await driver.close();
          const [next] = await driver.getAllWindowHandles();
          if (next) {
            await driver.switchTo().window(next);
            current = next;
          }
        }),
    });
  };
  let first = current;
  return {
    newPage: () =>
      inOrder(async () => {
        if (first) {
          const handle = first;
          first = null;
          return wrap(handle);
        }
        await driver.switchTo().newWindow('tab');
        current = await driver.getWindowHandle();
        return wrap(current);
      }),
    async close() {
      await driver.quit().catch(() => {});
      server.stop();
      xvfb.stop();
    },
  };
}

const LAUNCHERS = { chromium: launchChromiumEngine, firefox: launchFirefoxEngine, webkit: launchWebKitEngine };

/**
 * Launches `engine` on a fresh profile; resolves to `{ engine, userAgent, newPage(), close() }`.
 * The first `newPage()` gives the tab the browser opened with.
 */
export async function launchEngine(engine) {
  const launcher = LAUNCHERS[engine];
  if (!launcher) throw new Error(`unknown engine ${engine} (one of ${ALL.join(', ')})`);
  const browser = await launcher();
  return { engine, ...browser };
}

/**
 * The package's static server (scripts/serve.mjs) and `engine` with a page on the harness
 * (tests/browser/harness.html). Resolves to `{ url, engine, browser, page, userAgent, open(),
 * close() }`; `open()` gives another tab on the harness (same origin, same storage).
 */
export async function openHarness(engine) {
  const server = await startServer(0);
  let browser;
  try {
    browser = await launchEngine(engine);
    const harness = `${server.url}tests/browser/harness.html`;
    const open = async () => {
      const page = await browser.newPage();
      await page.goto(harness);
      return page;
    };
    const page = await open();
    const userAgent = await page.evaluate(() => navigator.userAgent);
    return {
      url: server.url,
      engine,
      browser,
      page,
      userAgent,
      open,
      async close() {
        await browser.close();
        await server.close();
      },
    };
  } catch (error) {
    await browser?.close();
    await server.close();
    throw error;
  }
}
