// examples/shared/zip.js in Node (it uses only Blob, DataView and DecompressionStream, which Node
// has too): what `zip` writes `unzip` reads back; deflated entries, UTF-8 names and folders are
// read; damaged, encrypted, ZIP64 and unknown-method archives are refused with FX_ZIP_INVALID.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deflateRawSync } from 'node:zlib';

import { unzip, zip } from '../../examples/shared/zip.js';

const bytes = (text) => new TextEncoder().encode(text);

/** A one-entry archive with the given method and (already packed) data, CRC and sizes. */
function archive({ name = 'a.txt', method = 0, flags = 0x0800, packed, size, crc }) {
  const nameBytes = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(flags, 6);
  local.writeUInt16LE(method, 8);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(packed.length, 18);
  local.writeUInt32LE(size, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(flags, 8);
  central.writeUInt16LE(method, 10);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(packed.length, 20);
  central.writeUInt32LE(size, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + nameBytes.length, 12);
  end.writeUInt32LE(30 + nameBytes.length + packed.length, 16);
  return new Uint8Array(Buffer.concat([local, nameBytes, packed, central, nameBytes, end]));
}

async function crcOf(data) {
  // The writer's CRC, read back from a stored archive of `data`.
  const written = new Uint8Array(await zip({ x: data }).arrayBuffer());
  return new DataView(written.buffer).getUint32(14, true);
}

test('what zip writes, unzip reads back (Blob, ArrayBuffer or bytes), folders included', async () => {
  const files = {
    'session/events.jsonl': bytes('{"a":1}\n'),
    'session/images/é.bin': new Uint8Array([0, 255, 7]),
    'empty.txt': new Uint8Array(0),
  };
  const blob = zip(files);
  for (const input of [blob, await blob.arrayBuffer(), new Uint8Array(await blob.arrayBuffer())]) {
    assert.deepEqual(await unzip(input), files);
  }
});

test('deflated entries are inflated and checked', async () => {
  const data = bytes('hello hello hello hello\n'.repeat(50));
  const packed = deflateRawSync(data);
  assert.ok(packed.length < data.length);
  const files = await unzip(archive({ method: 8, packed, size: data.length, crc: await crcOf(data) }));
  assert.deepEqual(files, { 'a.txt': data });
  await assert.rejects(unzip(archive({ method: 8, packed, size: data.length - 1, crc: await crcOf(data) })), { code: 'FX_ZIP_INVALID' });
});

test('damaged or unsupported archives are refused with FX_ZIP_INVALID', async () => {
  const data = bytes('content');
  const crc = await crcOf(data);
  const cases = {
    'a bad CRC': archive({ packed: data, size: data.length, crc: (crc ^ 1) >>> 0 }),
    encryption: archive({ flags: 0x0801, packed: data, size: data.length, crc }),
    'another method': archive({ method: 12, packed: data, size: data.length, crc }),
    ZIP64: archive({ packed: data, size: 0xffffffff, crc }),
    'no end record': data,
    'a cut archive': archive({ packed: data, size: data.length, crc }).slice(0, 40),
  };
  for (const [what, input] of Object.entries(cases)) {
    await assert.rejects(unzip(input), { code: 'FX_ZIP_INVALID' }, what);
  }
  await assert.rejects(unzip('not bytes'), TypeError);
});

test('entries carry the date they were written (MS-DOS local date and time), not 1980-00-00', async () => {
  const when = new Date(2026, 4, 17, 13, 45, 30);
  const bytes = new Uint8Array(await zip({ 'a/b.txt': new TextEncoder().encode('hi') }, { date: when }).arrayBuffer());
  const view = new DataView(bytes.buffer);
  const time = view.getUint16(10, true);
  const date = view.getUint16(12, true);
  assert.deepEqual(
    [1980 + (date >> 9), (date >> 5) & 15, date & 31, time >> 11, (time >> 5) & 63, (time & 31) * 2],
    [2026, 5, 17, 13, 45, 30],
  );
  const central = bytes.findIndex((_, i) => view.getUint32(i, true) === 0x02014b50);
  assert.equal(view.getUint16(central + 12, true), time);
  assert.equal(view.getUint16(central + 14, true), date);
  // By default: now.
  const now = new Uint8Array(await zip({ x: new Uint8Array(1) }).arrayBuffer());
  assert.equal(1980 + (new DataView(now.buffer).getUint16(12, true) >> 9), new Date().getFullYear());
});
