// The shipped artifacts' sizes (pkg/fx-core, fx-term and fx-bot .wasm: raw, gzip -9, brotli at
// quality 11), then which
// crates the wasm bytes go to: reads a wasm file's code section and its `name` section (default:
// wasm-bindgen's output before wasm-opt, target/fx-build/fx-core/fx-core_bg.wasm after
// `npm run build`) and sums function body sizes by the crate of each mangled name. After LTO and
// inlining the attribution is approximate, but it shows what a dependency costs.
//
// Usage: node scripts/wasm-sizes.mjs [file.wasm] [top N]

import { readFile } from 'node:fs/promises';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`.padStart(11);
console.log('artifact               raw     gzip -9      brotli');
for (const name of ['fx-core.wasm', 'fx-term.wasm', 'fx-bot.wasm']) {
  const shipped = await readFile(`pkg/${name}`).catch(() => null);
  if (!shipped) {
    console.log(`${name.padEnd(14)} (not built: npm run build)`);
    continue;
  }
  const gz = gzipSync(shipped, { level: 9 }).length;
  const br = brotliCompressSync(shipped, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: shipped.length },
  }).length;
  console.log(`${name.padEnd(14)}${kib(shipped.length)} ${kib(gz)} ${kib(br)}`);
}
console.log('');

const file = process.argv[2] ?? 'target/fx-build/fx-core/fx-core_bg.wasm';
const top = Number(process.argv[3] ?? 25);
const bytes = await readFile(file);

let pos = 8;
function u32() {
  let result = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[pos++];
    result += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return result;
    shift += 7;
  }
}
function name() {
  const len = u32();
  const text = bytes.toString('utf8', pos, pos + len);
  pos += len;
  return text;
}

let importedFunctions = 0;
const bodySizes = [];
const names = new Map();
const sections = [];
while (pos < bytes.length) {
  const id = bytes[pos++];
  const size = u32();
  const end = pos + size;
  if (id === 2) {
    for (let n = u32(); n > 0; n--) {
      name();
      name();
      const kind = bytes[pos++];
      if (kind === 0) {
        importedFunctions++;
        u32();
      } else if (kind === 1) {
        pos++;
        const flags = u32();
        u32();
        if (flags & 1) u32();
      } else if (kind === 2) {
        const flags = u32();
        u32();
        if (flags & 1) u32();
      } else if (kind === 3) {
        pos += 2;
      } else {
        u32();
      }
    }
  } else if (id === 10) {
    for (let n = u32(); n > 0; n--) {
      const len = u32();
      bodySizes.push(len);
      pos += len;
    }
  } else if (id === 0) {
    const section = name();
    if (section === 'name') {
      while (pos < end) {
        const sub = bytes[pos++];
        const subSize = u32();
        const subEnd = pos + subSize;
        if (sub === 1) {
          for (let n = u32(); n > 0; n--) {
            const index = u32();
            names.set(index, name());
          }
        }
        pos = subEnd;
      }
    }
    sections.push([`custom ${section}`, size]);
  } else {
    sections.push([`section ${id}`, size]);
  }
  pos = end;
}

/** The crate a (legacy-mangled) Rust symbol belongs to, or a group for other symbols. */
function crateOf(symbol) {
  if (!symbol) return '(unnamed)';
  if (symbol.startsWith('__wbg') || symbol.startsWith('__wbindgen')) return 'wasm-bindgen (runtime)';
  if (symbol.startsWith('_R')) {
    // v0 mangling: the first crate root is `C`, an optional `s<hash>_` disambiguator, then
    // `<length><name>`.
    const m = symbol.match(/C(?:s[0-9A-Za-z]*_)?(\d+)([A-Za-z_]\w*)/);
    return m ? m[2].slice(0, Number(m[1])) : '(other)';
  }
  if (!symbol.startsWith('_ZN')) {
    // Demangled (wasm-bindgen's output): `crate::path::f`, `<crate[hash]::T as Trait>::f`, ...
    const m = symbol.replace(/^[<&[(\s]+|^mut\s+/g, '').match(/^([A-Za-z_]\w*)(\[[0-9a-f]+\])?::/);
    return m ? m[1] : `(${symbol.split(/[.$]/)[0]})`;
  }
  const rest = symbol.slice(3);
  const digits = rest.match(/^\d+/)?.[0] ?? '0';
  let ident = rest.slice(digits.length, digits.length + Number(digits));
  // `<T as Trait>` impls mangle as `_$LT$crate..path..T$u20$as$u20$...$GT$`.
  ident = ident.replace(/^_?\$LT\$/, '').replace(/^\$RF\$/, '').replace(/^\$u5b\$/, '');
  return ident.split('..')[0].split('$')[0] || '(other)';
}

const byCrate = new Map();
let total = 0;
bodySizes.forEach((size, i) => {
  const crate = crateOf(names.get(importedFunctions + i));
  byCrate.set(crate, (byCrate.get(crate) ?? 0) + size);
  total += size;
});

console.log(`${file}: ${bytes.length} bytes; code ${total} bytes in ${bodySizes.length} functions`);
if (names.size === 0) console.log('(no name section: build with symbols to attribute code to crates)');
for (const [crate, size] of [...byCrate].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${(size / 1024).toFixed(1).padStart(8)} KiB  ${((100 * size) / total).toFixed(1).padStart(5)}%  ${crate}`);
}
const data = sections.find(([n]) => n === 'section 11');
if (data) console.log(`data segments: ${(data[1] / 1024).toFixed(1)} KiB`);
