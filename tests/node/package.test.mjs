// The package as a user gets it: `npm pack` of pkg/, installed into a fresh project, imported by
// name (Node resolves the `exports` map), and its types checked by `tsc --noEmit`.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkgDir = join(root, 'pkg');
const { name: packageName } = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8'));
let project;

function run(cmd, args, cwd) {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

before(async () => {
  project = await mkdtemp(join(tmpdir(), 'fx-wasm-pack-'));
  const [{ filename }] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', project, pkgDir], root));
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(project, filename)], project);
});

after(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

test('the packed package imports by name and loads its wasm', async () => {
  await writeFile(
    join(project, 'use.mjs'),
    `import * as fx from ${JSON.stringify(packageName)};
const names = ['readSession', 'importNativeSession', 'exportNativeSession', 'setWasm'];
for (const n of names) if (typeof fx[n] !== 'function') throw new Error('missing export ' + n);
const wasm = import.meta.resolve(${JSON.stringify(`${packageName}/fx-core.wasm`)});
const term = import.meta.resolve(${JSON.stringify(`${packageName}/fx-term.wasm`)});
const err = await fx.readSession(new TextEncoder().encode('garbage\\n')).catch((e) => e);
console.log(JSON.stringify({ wasm, term, name: err.name, code: err.code }));
`,
  );
  const out = JSON.parse(run(process.execPath, ['use.mjs'], project));
  assert.match(out.wasm, /node_modules\/fx-wasm\/fx-core\.wasm$/);
  assert.match(out.term, /node_modules\/fx-wasm\/fx-term\.wasm$/);
  assert.equal(out.name, 'FxError');
  assert.equal(out.code, 'FX_SESSION_INVALID');
});

test('the packed files are the ones the package needs', async () => {
  const listing = JSON.parse(run('npm', ['pack', '--dry-run', '--json', pkgDir], root));
  const files = listing[0].files.map((f) => f.path).sort();
  // Every module of js/ ships, plus the artifacts, the bots' code table the build writes out
  // from fx-bot.wasm (fxbot/codes.js) and the package files; nothing else.
  const jsFiles = (await readdir(join(root, 'js'), { recursive: true }))
    .filter((f) => /\.(js|d\.ts)$/.test(f))
    .map((f) => f.split(sep).join('/'));
  const expected = [
    'LICENSE',
    'README.md',
    'fx-core.js',
    'fx-core.wasm',
    'fx-term.js',
    'fx-term.wasm',
    'fx-bot.js',
    'fx-bot.wasm',
    'fxbot/codes.js',
    'package.json',
    ...jsFiles,
  ].sort();
  assert.deepEqual(files, expected);
});

test('the public types check with tsc --noEmit', async () => {
  await writeFile(
    join(project, 'use.ts'),
    `import { readSession, importNativeSession, exportNativeSession, setWasm } from ${JSON.stringify(packageName)};
import type { FxError, SessionView, SessionTurn, ToolResult } from ${JSON.stringify(packageName)};

setWasm(new URL('https://cdn.example/fx-core.wasm'));
setWasm({ core: 'https://cdn.example/fx-core.wasm', term: fetch('https://cdn.example/fx-term.wasm') });

async function titles(bytes: Uint8Array): Promise<string[]> {
  const view: SessionView = await readSession(bytes);
  const lines: string[] = [view.title, view.preferences.model, String(view.totalInputTokens + view.usage.totalCost)];
  for (const turn of view.turns) lines.push(describe(turn));
  return lines;
}

function describe(turn: SessionTurn): string {
  switch (turn.kind) {
    case 'assistant':
      return turn.user.text + ' -> ' + turn.assistant + turn.steps.map((s) => s.toolResults.map(exit).join()).join();
    case 'interrupted':
      return turn.user.text + ' (' + turn.reason + ')' + (turn.toolCall?.name ?? '');
    case 'background_command':
      return turn.user.text;
    case 'compacted_summary':
      return turn.summary;
  }
}

function exit(result: ToolResult): string {
  return result.status + (result.exitCode === null ? '' : ' exit ' + result.exitCode);
}

async function roundTrip(bytes: Uint8Array): Promise<Uint8Array> {
  const files: Record<string, Uint8Array> = await exportNativeSession(bytes);
  return importNativeSession(files);
}

function isFxError(e: unknown): e is FxError {
  return e instanceof Error && (e as FxError).code === 'FX_SESSION_INVALID';
}

// @ts-expect-error readSession takes bytes, not text
readSession('events');

export { titles, roundTrip, isFxError };
`,
  );
  await writeFile(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        lib: ['es2022', 'dom'],
        strict: true,
        noEmit: true,
        types: [],
      },
      files: ['use.ts'],
    }),
  );
  const tsc = join(root, 'node_modules', '.bin', 'tsc');
  try {
    run(tsc, ['--noEmit', '-p', 'tsconfig.json'], project);
  } catch (err) {
    assert.fail(`tsc reported errors:\n${err.stdout}${err.stderr}`);
  }
});
