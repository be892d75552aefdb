// Builds the npm package into pkg/: the wasm artifacts (fx-core without the terminal, fx-term
// with it, fx-bot with the bots engine), their wasm-bindgen glue, wasm-opt -Oz, the JS entry from js/ and the package files
// from pkg-template/. Prints each artifact's size and fails past the budget in size-budget.json.
//
// An artifact is rebuilt only when its inputs changed: a stamp in target/fx-build/ holds a hash
// of the crate's sources, Cargo.toml, Cargo.lock, the features, this script, RUSTFLAGS and the
// versions of rustc, wasm-bindgen and wasm-opt. `--force` rebuilds regardless.
//
// `--bench` builds fx-core with the benchmark exports (feature `bench`) for `npm run bench`; it is
// built and stamped apart (target/fx-build/fx-core-bench/), so switching back to the production
// build only copies files.
//
// Usage: node scripts/build.mjs [--no-opt] [--force] [--bench]

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = join(root, 'pkg');
const target = process.env.CARGO_TARGET_DIR ?? join(root, 'target');
const work = join(target, 'fx-build');
const optimize = !process.argv.includes('--no-opt');
const force = process.argv.includes('--force');
const bench = process.argv.includes('--bench');

// The wasm features rustc enables by default for wasm32-unknown-unknown; wasm-opt must accept
// them all or it refuses the module.
const WASM_FEATURES = [
  '--enable-bulk-memory',
  '--enable-mutable-globals',
  '--enable-nontrapping-float-to-int',
  '--enable-reference-types',
  '--enable-sign-ext',
  '--enable-multivalue',
];

const STRIP = ['--strip-debug', '--strip-producers', '--strip-target-features'];
const wasmOpt = join(root, 'node_modules', '.bin', 'wasm-opt');

// `dir` names the artifact's work files in target/fx-build/ (`name` is what the package ships).
const ARTIFACTS = [
  bench
    ? { name: 'fx-core', dir: 'fx-core-bench', cargoArgs: ['--features', 'bench'] }
    : { name: 'fx-core', dir: 'fx-core', cargoArgs: [] },
  // fx-term exports TermCore only (feature `core-api` off): see Cargo.toml.
  { name: 'fx-term', dir: 'fx-term', cargoArgs: ['--no-default-features', '--features', 'term'] },
  { name: 'fx-bot', dir: 'fx-bot', cargoArgs: ['--no-default-features', '--features', 'bot'] },
];

function run(cmd, args, options = {}) {
  console.log(`$ ${cmd} ${args.join(' ')}`);
  execFileSync(cmd, args, { cwd: root, stdio: 'inherit', ...options });
}

async function pinnedWasmBindgenVersion() {
  const toml = await readFile(join(root, 'Cargo.toml'), 'utf8');
  const match = toml.match(/^wasm-bindgen\s*=\s*"=([^"]+)"/m);
  if (!match) throw new Error('Cargo.toml does not pin wasm-bindgen with "=x.y.z"');
  return match[1];
}

async function checkWasmBindgen() {
  const want = await pinnedWasmBindgenVersion();
  let have = '';
  try {
    have = execFileSync('wasm-bindgen', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    // Reported below.
  }
  if (have !== `wasm-bindgen ${want}`) {
    throw new Error(
      `wasm-bindgen ${want} is required (found: ${have || 'none'}); run scripts/setup.sh`,
    );
  }
}

function formatKiB(bytes) {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

async function buildArtifact({ name, dir, cargoArgs }) {
  // Keep rustc's custom sections (the `target_features` one tells wasm-bindgen which wasm
  // features to use); wasm-opt strips them afterwards.
  run('cargo', [
    'build', '--release', '--locked', '--target', 'wasm32-unknown-unknown',
    '--config', 'profile.release.strip=false', ...cargoArgs,
  ]);
  const raw = join(work, `${dir}.raw.wasm`);
  await cp(join(target, 'wasm32-unknown-unknown', 'release', 'fx_wasm.wasm'), raw);

  const out = join(work, dir);
  await rm(out, { recursive: true, force: true });
  // No default module path in the glue: js/load-*.js names the file (and bundlers must not see
  // the glue's `<name>_bg.wasm`, which the package does not ship).
  run('wasm-bindgen', [
    '--target', 'web', '--no-typescript', '--omit-default-module-path',
    '--out-dir', out, '--out-name', name, raw,
  ]);

  const bindgenWasm = join(out, `${name}_bg.wasm`);
  const file = join(work, `${dir}.wasm`);
  if (optimize) {
    run(wasmOpt, ['-Oz', ...WASM_FEATURES, ...STRIP, bindgenWasm, '-o', file]);
  } else {
    await cp(bindgenWasm, file);
  }
}

/** The files of a directory tree, sorted, as paths relative to the repository root. */
async function treeFiles(dir) {
  const entries = await readdir(join(root, dir), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath ?? entry.path, entry.name)))
    .sort();
}

/** What an artifact is built from, hashed: when it is unchanged, so is the artifact. */
async function inputsHash({ name, cargoArgs }, tools) {
  const hash = createHash('sha256');
  const add = (label, value) => hash.update(`${label}\0${value.length}\0`).update(value);
  add('artifact', JSON.stringify({ name, cargoArgs, optimize, WASM_FEATURES, STRIP }));
  add('tools', tools);
  add('env', JSON.stringify([process.env.RUSTFLAGS ?? '', process.env.CARGO_ENCODED_RUSTFLAGS ?? '']));
  const files = ['Cargo.toml', 'Cargo.lock', 'scripts/build.mjs', ...(await treeFiles('src'))];
  for (const file of files) add(file, await readFile(join(root, file)));
  return hash.digest('hex');
}

/** The versions of the tools an artifact goes through, as one string. */
async function toolVersions() {
  const rustc = execFileSync('rustc', ['-vV'], { encoding: 'utf8' });
  const bindgen = execFileSync('wasm-bindgen', ['--version'], { encoding: 'utf8' });
  const binaryen = JSON.parse(await readFile(join(root, 'node_modules', 'binaryen', 'package.json'), 'utf8'));
  return `${rustc}\n${bindgen}\nbinaryen ${binaryen.version}`;
}

async function exists(path) {
  return stat(path).then(() => true, () => false);
}

/** Builds an artifact into target/fx-build/ unless its stamp says it is up to date. */
async function ensureArtifact(artifact, tools) {
  const { name, dir } = artifact;
  const stampFile = join(work, `${dir}.stamp`);
  const outputs = [join(work, `${dir}.wasm`), join(work, dir, `${name}.js`), join(work, dir, `${name}_bg.wasm`)];
  const want = await inputsHash(artifact, tools);
  const have = await readFile(stampFile, 'utf8').catch(() => '');
  const present = (await Promise.all(outputs.map(exists))).every(Boolean);
  if (!force && have === want && present) {
    console.log(`${dir}: up to date (inputs unchanged)`);
  } else {
    await rm(stampFile, { force: true });
    await buildArtifact(artifact);
    await writeFile(stampFile, want);
  }
  const [file, glue, bindgenWasm] = outputs;
  await cp(glue, join(pkg, `${name}.js`));
  await cp(file, join(pkg, `${name}.wasm`));
  return { raw: (await stat(bindgenWasm)).size, file: join(pkg, `${name}.wasm`) };
}

/**
 * Writes pkg/fxbot/codes.js: the FXBOT_* rows of the one code table (src/code.rs) with their
 * statuses, as fx-bot.wasm itself lists them (`fxbotCodes()`), so js/fxbot/ holds no copy.
 */
async function writeFxbotCodes() {
  const glue = await import(pathToFileURL(join(pkg, 'fx-bot.js')).href);
  glue.initSync({ module: await readFile(join(pkg, 'fx-bot.wasm')) });
  const rows = glue.fxbotCodes();
  const table = Object.fromEntries(rows.map(({ code, status }) => [code, status]));
  const text =
    '// Written by scripts/build.mjs from the code table (src/code.rs, through fx-bot.wasm):\n' +
    '// the FXBOT_* codes of FxbotError, each with its HTTP-like status.\n' +
    `export const FXBOT_CODES = Object.freeze(${JSON.stringify(table, null, 2)});\n`;
  await writeFile(join(pkg, 'fxbot', 'codes.js'), text);
}

async function main() {
  await checkWasmBindgen();
  await rm(pkg, { recursive: true, force: true });
  await mkdir(pkg, { recursive: true });
  await mkdir(work, { recursive: true });

  const tools = await toolVersions();
  const built = [];
  for (const artifact of ARTIFACTS) {
    built.push({ name: `${artifact.name}.wasm`, ...(await ensureArtifact(artifact, tools)) });
  }

  for (const dir of ['pkg-template', 'js']) {
    for (const entry of await readdir(join(root, dir))) {
      await cp(join(root, dir, entry), join(pkg, entry), { recursive: true });
    }
  }

  await writeFxbotCodes();

  const budget = JSON.parse(await readFile(join(root, 'scripts', 'size-budget.json'), 'utf8'));
  let over = false;
  console.log('\nartifact        before-opt      size   gzipped    brotli   budget (gzip)');
  for (const { name, raw, file } of built) {
    const bytes = await readFile(file);
    const gz = gzipSync(bytes, { level: 9 }).length;
    const br = brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }).length;
    const limit = budget[name];
    const verdict = gz > limit ? 'OVER' : 'ok';
    over ||= gz > limit;
    console.log(
      `${name.padEnd(14)} ${formatKiB(raw).padStart(11)} ${formatKiB(bytes.length).padStart(10)} ` +
        `${formatKiB(gz).padStart(9)} ${formatKiB(br).padStart(9)}   ${formatKiB(limit)} ${verdict}`,
    );
  }
  if (over) {
    console.error('\nbuild failed: an artifact exceeds its size budget (scripts/size-budget.json)');
    process.exit(1);
  }
  console.log(`\npackage written to ${pkg}`);
}

main().catch((err) => {
  console.error(`build failed: ${err.message}`);
  process.exit(1);
});
