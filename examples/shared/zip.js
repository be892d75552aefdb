// A small ZIP writer and reader for the example pages: enough to hand a session directory to the
// user as one download and to read one back. The writer stores entries uncompressed; the reader
// takes stored and deflated entries (deflate through the browser's DecompressionStream) and
// checks every CRC. Paths are UTF-8; no ZIP64, so archives stay under 4 GiB.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** `date` as ZIP's MS-DOS date and time (local time, two-second steps, years 1980–2107). */
function dosDateTime(date) {
  const year = Math.min(Math.max(date.getFullYear(), 1980), 2107);
  return {
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1),
    day: ((year - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
  };
}

/**
 * Builds a ZIP archive from `files` (path → Uint8Array) and returns it as a Blob. Every entry
 * is dated `date` (default: now).
 */
export function zip(files, { date = new Date() } = {}) {
  const encoder = new TextEncoder();
  const stamp = dosDateTime(date);
  const parts = [];
  const central = [];
  let offset = 0;
  for (const [path, data] of Object.entries(files)) {
    const name = encoder.encode(path);
    const crc = crc32(data);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true); // local file header
    local.setUint16(4, 20, true); // version needed
    local.setUint16(6, 0x0800, true); // UTF-8 names
    local.setUint16(10, stamp.time, true);
    local.setUint16(12, stamp.day, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, data.length, true);
    local.setUint32(22, data.length, true);
    local.setUint16(26, name.length, true);
    parts.push(local, name, data);

    const entry = new DataView(new ArrayBuffer(46));
    entry.setUint32(0, 0x02014b50, true); // central directory header
    entry.setUint16(4, 20, true);
    entry.setUint16(6, 20, true);
    entry.setUint16(8, 0x0800, true);
    entry.setUint16(12, stamp.time, true);
    entry.setUint16(14, stamp.day, true);
    entry.setUint32(16, crc, true);
    entry.setUint32(20, data.length, true);
    entry.setUint32(24, data.length, true);
    entry.setUint16(28, name.length, true);
    entry.setUint32(42, offset, true);
    central.push(entry, name);
    offset += 30 + name.length + data.length;
  }
  const size = central.reduce((n, part) => n + part.byteLength, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true); // end of central directory
  end.setUint16(8, central.length / 2, true);
  end.setUint16(10, central.length / 2, true);
  end.setUint32(12, size, true);
  end.setUint32(16, offset, true);
  return new Blob([...parts, ...central, end], { type: 'application/zip' });
}

/** The most an archive may unpack to (a session is at most 16 MiB, plus its images). */
export const MAX_UNZIPPED_BYTES = 64 * 1024 * 1024;

function bad(message) {
  return Object.assign(new Error(`not a usable zip archive: ${message}`), { code: 'FX_ZIP_INVALID' });
}

async function inflateRaw(data, expected) {
  const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  const out = new Uint8Array(expected);
  let length = 0;
  for await (const chunk of stream) {
    if (length + chunk.length > expected) throw bad('an entry inflates past its stated size');
    out.set(chunk, length);
    length += chunk.length;
  }
  if (length !== expected) throw bad('an entry inflates short of its stated size');
  return out;
}

/**
 * Reads a ZIP archive (`Uint8Array`, `ArrayBuffer` or `Blob`) into path → Uint8Array, skipping
 * folders. Rejects with code `FX_ZIP_INVALID` for anything it cannot read faithfully: other
 * compression methods, encryption, ZIP64, a CRC mismatch, or more than `MAX_UNZIPPED_BYTES`.
 */
export async function unzip(archive) {
  let bytes = archive;
  if (archive instanceof Blob) bytes = new Uint8Array(await archive.arrayBuffer());
  else if (archive instanceof ArrayBuffer) bytes = new Uint8Array(archive);
  if (!(bytes instanceof Uint8Array)) throw new TypeError('unzip: archive must be a Uint8Array, ArrayBuffer or Blob');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end-of-central-directory record sits in the last 22 + 65535 (comment) bytes.
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i -= 1) {
    if (view.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw bad('no end-of-central-directory record');
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const files = {};
  let total = 0;
  for (let n = 0; n < count; n += 1) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) throw bad('a broken central directory');
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const crc = view.getUint32(at + 16, true);
    const packed = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const localAt = view.getUint32(at + 42, true);
    if (at + 46 + nameLength > bytes.length) throw bad('a name runs past the end');
    let name;
    try {
      name = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    } catch {
      throw bad('an entry name is not UTF-8');
    }
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/')) continue;
    if (flags & 1) throw bad(`${name} is encrypted`);
    if (packed === 0xffffffff || size === 0xffffffff) throw bad('ZIP64 archives are not supported');
    total += size;
    if (total > MAX_UNZIPPED_BYTES) throw bad(`it unpacks to more than ${MAX_UNZIPPED_BYTES >> 20} MiB`);
    if (localAt + 30 > bytes.length || view.getUint32(localAt, true) !== 0x04034b50) throw bad(`${name}: no local header`);
    const dataAt = localAt + 30 + view.getUint16(localAt + 26, true) + view.getUint16(localAt + 28, true);
    if (dataAt + packed > bytes.length) throw bad(`${name} runs past the end`);
    const data = bytes.subarray(dataAt, dataAt + packed);
    let content;
    if (method === 0) {
      if (packed !== size) throw bad(`${name}: stored sizes differ`);
      content = data.slice();
    } else if (method === 8) {
      content = await inflateRaw(data, size);
    } else {
      throw bad(`${name} uses compression method ${method} (only stored and deflate are read)`);
    }
    if (crc32(content) !== crc) throw bad(`${name} fails its CRC check`);
    files[name] = content;
  }
  return files;
}
