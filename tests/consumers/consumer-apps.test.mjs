// The packed package in real consumer apps, one fresh app per way of building it: Vite (build and
// dev server), webpack 5 + webpack-cli, Rollup 4 + @rollup/plugin-node-resolve, esbuild, a page
// with no bundler and an import map, and Node importing the package by name. Each runs the
// recipe of the package README as written, then an agent turn (fx-core.wasm) and a terminal turn
// (fx-term.wasm) against a fake fetch, in Chromium or in Node.

import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

import { cleanPacks, makeApp, readmeRecipe, runNode, runPage, serveDir } from './apps.mjs';

after(cleanPacks);

/** What every app must report: both turns answered, both artifacts fetched from the app. */
function checkResult(result, origin) {
  assert.deepEqual(result.agent, {
    text: 'Hello from the agent.',
    stopReason: 'end_turn',
    stored: 'Hello from the agent.',
  });
  assert.ok(result.terminal.welcome, `the terminal started:\n${result.terminal.screen}`);
  assert.ok(result.terminal.answered, `the terminal turn was answered:\n${result.terminal.screen}`);
  assert.equal(result.terminal.exit, 0);
  if (origin) {
    assert.equal(new Set(result.wasm).size, 2, `two wasm files were fetched: ${result.wasm.join(', ')}`);
    for (const url of result.wasm) assert.ok(url.startsWith(origin), `${url} comes from the app`);
  }
}

const NODE_IMPORT = /\bimport\s*\(\s*["'`]node:|\bfrom\s*["'`]node:|\brequire\s*\(\s*["'`]node:/;

/** A browser bundle must not import a `node:` module, even one it never runs. */
async function assertNoNodeImports(dir) {
  const files = (await readdir(dir, { recursive: true })).filter((f) => /\.m?js$/.test(f) && !f.startsWith('node_modules'));
  assert.ok(files.length > 0, `the build wrote JavaScript into ${dir}`);
  for (const file of files) {
    const text = await readFile(join(dir, file), 'utf8');
    const found = text.match(NODE_IMPORT);
    assert.equal(found && text.slice(found.index, found.index + 40), null, `${file} imports a node: module`);
  }
}

/** Serves `dir`, runs the app's page in Chromium and checks what it reports. */
async function servePage(dir) {
  const server = await serveDir(dir);
  try {
    const { result, errors } = await runPage(server.url);
    checkResult(result, server.url);
    assert.deepEqual(errors, []);
  } finally {
    await server.close();
  }
}

/** Builds an app with the README's recipe for `heading`, serves `served` and runs its page. */
async function buildAndRun(label, heading, { packages, script, served = '.', output = 'dist' }) {
  const recipe = await readmeRecipe(heading);
  assert.ok(recipe.commands.length > 0, `the README gives commands for ${heading}`);
  const app = await makeApp(label, { packages, script });
  try {
    await app.write(recipe.files);
    for (const command of recipe.commands) await app.run(command);
    await assertNoNodeImports(join(app.dir, output));
    await servePage(join(app.dir, served));
  } finally {
    await app.remove();
  }
}

describe('consumer apps of the packed package', () => {
  test('Vite 8: vite build, the built page', () =>
    buildAndRun('vite-build', 'Vite', {
      packages: ['vite'],
      script: 'type="module" src="/src/index.js"',
      served: 'dist',
    }));

  test('Vite 8: the dev server', async () => {
    const app = await makeApp('vite-dev', { packages: ['vite'], script: 'type="module" src="/src/index.js"' });
    try {
      const server = await app.start('npx vite --host 127.0.0.1 --port 0', /Local:\s+(http:\/\/127\.0\.0\.1:\d+\/)/);
      try {
        const { result, errors } = await runPage(server.match[1]);
        checkResult(result, server.match[1]);
        assert.deepEqual(errors, []);
      } finally {
        server.stop();
      }
    } finally {
      await app.remove();
    }
  });

  test('Vite 8: the ?url imports the README gives, passed to setWasm', async () => {
    const { snippets } = await readmeRecipe('Vite');
    const snippet = snippets.find((text) => text.includes('?url'));
    assert.ok(snippet, 'the README shows the ?url imports');
    const app = await makeApp('vite-url', { packages: ['vite'], script: 'type="module" src="/src/entry.js"' });
    try {
      // The README's lines first, then the app (a dynamic import, so setWasm runs before it).
      await app.write({ 'src/entry.js': `${snippet}\nawait import('./index.js');\n` });
      await app.run('npx vite build');
      await assertNoNodeImports(join(app.dir, 'dist'));
      await servePage(join(app.dir, 'dist'));
    } finally {
      await app.remove();
    }
  });

  test('webpack 5 + webpack-cli', () =>
    buildAndRun('webpack', 'webpack 5', { packages: ['webpack', 'webpack-cli'], script: 'src="dist/main.js"' }));

  test('Rollup 4 + @rollup/plugin-node-resolve', () =>
    buildAndRun('rollup', 'Rollup', {
      packages: ['rollup', '@rollup/plugin-node-resolve'],
      script: 'type="module" src="dist/index.js"',
    }));

  test('esbuild', () =>
    buildAndRun('esbuild', 'esbuild', { packages: ['esbuild'], script: 'type="module" src="dist/index.js"' }));

  test('no bundler: an import map', async () => {
    const { html } = await readmeRecipe('No bundler');
    assert.equal(html.length, 1, 'the README gives the page');
    const app = await makeApp('importmap', { html: html[0] });
    try {
      await servePage(app.dir);
    } finally {
      await app.remove();
    }
  });

  test('Node: the package imported by name', async () => {
    const app = await makeApp('node', { node: true });
    try {
      checkResult(await runNode(app));
    } finally {
      await app.remove();
    }
  });
});
