// Builds the npm package into pkg/: both wasm artifacts (fx-core without the terminal, fx-term
// with it), their wasm-bindgen glue, wasm-opt -Oz, the JS entry from js/ and the package files
// from pkg-template/. Prints each artifact's size and fails past the budget in size-budget.json.
//
// Usage: node scripts/build.mjs [--no-opt]

import { execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = join(root, 'pkg');
const target = process.env.CARGO_TARGET_DIR ?? join(root, 'target');
const work = join(target, 'fx-build');
const optimize = !process.argv.includes('--no-opt');

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

const ARTIFACTS = [
  { name: 'fx-core', cargoArgs: [] },
  { name: 'fx-term', cargoArgs: ['--features', 'term'] },
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

async function buildArtifact({ name, cargoArgs }) {
  // Keep rustc's custom sections (the `target_features` one tells wasm-bindgen which wasm
  // features to use); wasm-opt strips them afterwards.
  run('cargo', [
    'build', '--release', '--locked', '--target', 'wasm32-unknown-unknown',
    '--config', 'profile.release.strip=false', ...cargoArgs,
  ]);
  const raw = join(work, `${name}.raw.wasm`);
  await cp(join(target, 'wasm32-unknown-unknown', 'release', 'fx_wasm.wasm'), raw);

  const out = join(work, name);
  await rm(out, { recursive: true, force: true });
  run('wasm-bindgen', ['--target', 'web', '--no-typescript', '--out-dir', out, '--out-name', name, raw]);

  await cp(join(out, `${name}.js`), join(pkg, `${name}.js`));
  const bindgenWasm = join(out, `${name}_bg.wasm`);
  const file = join(pkg, `${name}.wasm`);
  if (optimize) {
    const wasmOpt = join(root, 'node_modules', '.bin', 'wasm-opt');
    run(wasmOpt, ['-Oz', ...WASM_FEATURES, ...STRIP, bindgenWasm, '-o', file]);
  } else {
    await cp(bindgenWasm, file);
  }
  return { raw: (await stat(bindgenWasm)).size, file };
}

async function main() {
  await checkWasmBindgen();
  await rm(pkg, { recursive: true, force: true });
  await mkdir(pkg, { recursive: true });
  await mkdir(work, { recursive: true });

  const built = [];
  for (const artifact of ARTIFACTS) {
    built.push({ name: `${artifact.name}.wasm`, ...(await buildArtifact(artifact)) });
  }

  for (const dir of ['pkg-template', 'js']) {
    for (const entry of await readdir(join(root, dir))) {
      await cp(join(root, dir, entry), join(pkg, entry), { recursive: true });
    }
  }

  const budget = JSON.parse(await readFile(join(root, 'scripts', 'size-budget.json'), 'utf8'));
  let over = false;
  console.log('\nartifact        before-opt      size   gzipped   budget (gzip)');
  for (const { name, raw, file } of built) {
    const bytes = await readFile(file);
    const gz = gzipSync(bytes, { level: 9 }).length;
    const limit = budget[name];
    const verdict = gz > limit ? 'OVER' : 'ok';
    over ||= gz > limit;
    console.log(
      `${name.padEnd(14)} ${formatKiB(raw).padStart(11)} ${formatKiB(bytes.length).padStart(10)} ` +
        `${formatKiB(gz).padStart(9)}   ${formatKiB(limit)} ${verdict}`,
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
