// Fresh consumer apps of the packed package, as a new user makes them: `npm pack` of pkg/ (and of
// the xterm.js packages the apps import), installed offline into an app in a temp folder, the
// bundler linked in from this repository's node_modules (pinned in the root lock file, so
// `npm ci` brought it), and the recipe the package README gives for that bundler run as written.
// Then the app's page runs in Chromium (src/index.js: an agent turn and a terminal turn against
// a fake fetch) or, for Node, `node node.mjs`.
//
// FX_CONSUMER_PKG=<folder> tests another built package (for example the base commit's) instead
// of pkg/.

import { execFile, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { serveStatic } from '../../examples/dev-gateway/static.mjs';
import { launchChromium } from '../browser/chromium.mjs';

const run = promisify(execFile);

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const APP = join(root, 'tests', 'consumers', 'app');
const README = join(root, 'pkg-template', 'README.md');
const pkgDir = process.env.FX_CONSUMER_PKG ?? join(root, 'pkg');

/** Environment for every command in an app: offline npm, the app's own bins first. */
function appEnv(dir) {
  return {
    ...process.env,
    npm_config_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    PATH: `${join(dir, 'node_modules', '.bin')}:${process.env.PATH}`,
  };
}

/**
 * The recipe the README gives under `### <heading>` of its "Bundlers" section: its `sh` blocks
 * (commands) and the `js` blocks whose first line is `// <file name>` (files to write).
 */
export async function readmeRecipe(heading) {
  const text = await readFile(README, 'utf8');
  const bundlers = text.slice(text.indexOf('\n## Bundlers'));
  const start = bundlers.indexOf(`\n### ${heading}\n`);
  if (start < 0) throw new Error(`the package README has no "### ${heading}" recipe`);
  const rest = bundlers.slice(start + 1);
  const end = rest.search(/\n##+ /);
  const section = end < 0 ? rest : rest.slice(0, end);
  const recipe = { commands: [], files: {}, html: [], snippets: [] };
  for (const [, lang, body] of section.matchAll(/```(\w+)\n([\s\S]*?)```/g)) {
    if (lang === 'sh') recipe.commands.push(...body.split('\n').filter((line) => line.trim() && !line.startsWith('#')));
    const named = body.match(/^\/\/ ([\w.-]+)\n/);
    if (lang === 'js' && named) recipe.files[named[1]] = body.slice(named[0].length);
    else if (lang === 'js') recipe.snippets.push(body);
    if (lang === 'html') recipe.html.push(body);
  }
  return recipe;
}

let packed;

/** Packs the package and the xterm.js packages once; resolves to `{ dir, tarballs }`. */
async function packOnce() {
  packed ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fx-consumer-packs-'));
    const tarballs = {};
    const sources = {
      'fx-wasm': pkgDir,
      '@xterm/xterm': join(root, 'node_modules', '@xterm', 'xterm'),
      '@xterm/headless': join(root, 'node_modules', '@xterm', 'headless'),
    };
    for (const [name, source] of Object.entries(sources)) {
      const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir, source], {
        cwd: dir,
        env: appEnv(dir),
      });
      tarballs[name] = join(dir, JSON.parse(stdout)[0].filename);
    }
    return { dir, tarballs };
  })();
  return packed;
}

/** Removes the packed tarballs (call once, after the last app). */
export async function cleanPacks() {
  if (!packed) return;
  const { dir } = await packed;
  await rm(dir, { recursive: true, force: true });
}

/** Links a package of this repository's node_modules into the app, with its bins. */
async function linkPackage(dir, name) {
  const source = join(root, 'node_modules', name);
  const target = join(dir, 'node_modules', name);
  await mkdir(dirname(target), { recursive: true });
  await symlink(source, target, 'dir');
  const { bin } = JSON.parse(await readFile(join(source, 'package.json'), 'utf8'));
  const bins = typeof bin === 'string' ? { [name.split('/').pop()]: bin } : (bin ?? {});
  await mkdir(join(dir, 'node_modules', '.bin'), { recursive: true });
  for (const [command, file] of Object.entries(bins)) {
    await symlink(join(source, file), join(dir, 'node_modules', '.bin', command)).catch((error) => {
      if (error.code !== 'EEXIST') throw error;
    });
  }
}

const PAGE_HEAD = '<!doctype html>\n<meta charset="utf-8">\n<link rel="icon" href="data:,">\n<title>fx-wasm consumer</title>\n';

/**
 * Makes a fresh app in a temp folder: package.json depending on the packed tarballs, the app's
 * sources, `index.html` (a `script` tag, or the README's own HTML), and the linked bundler
 * packages. Resolves to `{ dir, run(command), remove() }`.
 */
export async function makeApp(label, { packages = [], script, html, node = false } = {}) {
  const { tarballs } = await packOnce();
  const dir = await mkdtemp(join(tmpdir(), `fx-consumer-${label}-`));
  const dependencies = { 'fx-wasm': `file:${tarballs['fx-wasm']}` };
  const xterm = node ? '@xterm/headless' : '@xterm/xterm';
  dependencies[xterm] = `file:${tarballs[xterm]}`;
  await writeFile(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: `fx-consumer-${label}`, private: true, type: 'module', dependencies }, null, 2)}\n`,
  );
  await cp(join(APP, 'src'), join(dir, 'src'), { recursive: true });
  if (node) await cp(join(APP, 'node.mjs'), join(dir, 'node.mjs'));
  const body = html ?? `<script ${script}></script>\n`;
  await writeFile(join(dir, 'index.html'), `${PAGE_HEAD}<div id="terminal"></div>\n${body}`);
  const env = appEnv(dir);
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: dir, env });
  for (const name of packages) await linkPackage(dir, name);
  return {
    dir,
    /** Runs a shell command line in the app, as the README writes it. */
    async run(command) {
      try {
        return await run('bash', ['-euo', 'pipefail', '-c', command], { cwd: dir, env, maxBuffer: 16 << 20 });
      } catch (error) {
        throw new Error(`\`${command}\` failed in ${label}:\n${error.stdout ?? ''}${error.stderr ?? ''}`, { cause: error });
      }
    },
    /** Starts a long-running command (a dev server); resolves once `ready` matches its output. */
    start(command, ready) {
      return startProcess(command, ready, { cwd: dir, env });
    },
    async write(files) {
      for (const [name, text] of Object.entries(files)) {
        await mkdir(dirname(join(dir, name)), { recursive: true });
        await writeFile(join(dir, name), text);
      }
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

function startProcess(command, ready, { cwd, env }) {
  const child = spawn('bash', ['-c', `exec ${command}`], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const stop = () => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`\`${command}\` did not start within 30 s:\n${output}`));
    }, 30_000);
    const onData = (chunk) => {
      output += chunk;
      // eslint-disable-next-line no-control-regex
      const match = output.replace(/\x1b\[[0-9;]*m/g, '').match(ready);
      if (match) {
        clearTimeout(timer);
        resolve({ match, output: () => output, stop });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`\`${command}\` exited (${code}) before it was ready:\n${output}`));
    });
  });
}

/** Serves `dir` as static files on 127.0.0.1 (a free port); resolves to `{ url, close() }`. */
export function serveDir(dir) {
  const server = createServer((req, res) => {
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const resolve = (p) => {
      const rel = normalize(p).replace(/^[/\\]+/, '');
      return rel.split(sep).includes('..') ? null : join(dir, rel);
    };
    serveStatic(req, res, path, resolve).catch(() => res.writeHead(500).end());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}/`,
        close: () => new Promise((done) => server.close(done)),
      });
    });
  });
}

/**
 * Opens `url` in Chromium and waits for the app's result (`window.__fxConsumer`). Resolves to
 * `{ result, errors }`; rejects with the page's error when the app failed.
 */
export async function runPage(url) {
  const browser = await launchChromium();
  try {
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    const errors = [];
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    await page.goto(url);
    await page
      .waitForFunction(() => window.__fxConsumer || window.__fxConsumerError, null, { timeout: 30_000 })
      .catch(() => {});
    const { result, failure } = await page.evaluate(() => ({
      result: window.__fxConsumer,
      failure: window.__fxConsumerError ?? null,
    }));
    if (!result) throw new Error(`the app at ${url} did not finish: ${failure ?? 'no result in 30 s'}\n${errors.join('\n')}`);
    return { result, errors };
  } finally {
    await browser.close();
  }
}

/** Runs the Node app; resolves to its result. */
export async function runNode(app) {
  const { stdout } = await app.run('node node.mjs');
  return JSON.parse(stdout.trim().split('\n').at(-1));
}
