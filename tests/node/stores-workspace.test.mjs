// The try page's just-bash workspace adapter (examples/try/workspace.js) in Node: the version 1
// shape, commands over the starter project, files kept across commands, exit codes, the output
// cap, abort and timeout.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { STARTER_FILES, capOutput, createJustBashWorkspace } from '../../examples/try/workspace.js';

const run = (ws, command, extra = {}) =>
  ws.exec({ command, cwd: ws.info.cwd, signal: new AbortController().signal, timeoutMs: 30_000, outputLimitBytes: 65_536, ...extra });

describe('createJustBashWorkspace', () => {
  test('the version 1 shape', () => {
    const ws = createJustBashWorkspace();
    assert.deepEqual({ ...ws.info }, {
      version: 1,
      root: '/workspace',
      cwd: '/workspace',
      home: '/home/visitor',
      gitAvailable: false,
      ephemeral: true,
    });
    assert.equal(ws.permission, 'allow-sandboxed');
    assert.equal(typeof ws.exec, 'function');
    assert.equal(createJustBashWorkspace({ permission: 'prompt' }).permission, 'prompt');
  });

  test('permission is switchable and validated', () => {
    const ws = createJustBashWorkspace();
    ws.permission = 'prompt';
    assert.equal(ws.permission, 'prompt');
    assert.throws(() => {
      ws.permission = 'allow-all';
    }, TypeError);
    assert.throws(() => createJustBashWorkspace({ permission: 'yes' }), TypeError);
    assert.throws(() => createJustBashWorkspace({ files: { '../escape': 'x' } }), TypeError);
  });

  test('commands run over the starter project', async () => {
    const ws = createJustBashWorkspace();
    const ls = await run(ws, 'ls');
    assert.equal(ls.exitCode, 0);
    for (const name of ['README.md', 'package.json', 'src', 'test']) assert.match(ls.stdout, new RegExp(name));
    const where = await run(ws, 'pwd; echo "$HOME"');
    assert.equal(where.stdout, '/workspace\n/home/visitor\n');
    const readme = await run(ws, 'cat README.md');
    assert.equal(readme.stdout, STARTER_FILES['README.md']);
    const todos = await run(ws, 'grep -n TODO -r src');
    assert.match(todos.stdout, /src\/tasks\.js:\d+:.*TODO/);
    assert.match(todos.stdout, /src\/format\.js:\d+:.*TODO/);
    const pkg = JSON.parse((await run(ws, 'cat package.json')).stdout);
    assert.equal(pkg.name, 'tasks');
  });

  test('files persist across commands; each workspace is separate', async () => {
    const ws = createJustBashWorkspace();
    await run(ws, 'mkdir -p notes && echo "first" > notes/a.txt');
    await run(ws, 'echo "second" >> notes/a.txt; sed -i "s/TODO: reject empty titles/DONE/" src/tasks.js');
    assert.equal((await run(ws, 'cat notes/a.txt')).stdout, 'first\nsecond\n');
    assert.match((await run(ws, 'grep -c DONE src/tasks.js')).stdout, /^1\n$/);
    const other = createJustBashWorkspace({ files: { 'only.txt': 'x' } });
    assert.equal((await run(other, 'ls')).stdout, 'only.txt\n');
    assert.notEqual((await run(other, 'cat notes/a.txt')).exitCode, 0);
  });

  test('reset() brings the starter project back', async () => {
    const ws = createJustBashWorkspace();
    await run(ws, 'rm README.md && echo new > extra.txt');
    ws.reset();
    assert.equal((await run(ws, 'cat README.md')).stdout, STARTER_FILES['README.md']);
    assert.notEqual((await run(ws, 'cat extra.txt')).exitCode, 0);
    assert.equal(typeof ws.bash.exec, 'function');
  });

  test('exit codes and stderr come back', async () => {
    const ws = createJustBashWorkspace();
    assert.deepEqual(await run(ws, 'exit 3'), { stdout: '', stderr: '', exitCode: 3 });
    const missing = await run(ws, 'cat nope.txt');
    assert.notEqual(missing.exitCode, 0);
    assert.match(missing.stderr, /nope\.txt/);
    const notFound = await run(ws, 'definitely-not-a-command');
    assert.equal(notFound.exitCode, 127);
    const both = await run(ws, 'echo out; echo err >&2; false');
    assert.deepEqual(both, { stdout: 'out\n', stderr: 'err\n', exitCode: 1 });
  });

  test('an abort rejects with AbortError promptly, and the workspace still works after', async () => {
    const ws = createJustBashWorkspace();
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(run(ws, 'sleep 10', { signal: controller.signal }), { name: 'AbortError' });
    assert.ok(Date.now() - started < 2_000, 'rejected soon after the abort');
    const already = new AbortController();
    already.abort();
    await assert.rejects(run(ws, 'echo never > never.txt', { signal: already.signal }), { name: 'AbortError' });
    assert.notEqual((await run(ws, 'cat never.txt')).exitCode, 0, 'an aborted-before-start command never ran');
    assert.equal((await run(ws, 'echo alive')).stdout, 'alive\n');
  });

  test('an abort with a TimeoutError reason rejects with it; timeoutMs is enforced', async () => {
    const ws = createJustBashWorkspace();
    const controller = new AbortController();
    setTimeout(() => controller.abort(new DOMException('deadline', 'TimeoutError')), 50);
    await assert.rejects(run(ws, 'sleep 10', { signal: controller.signal }), { name: 'TimeoutError' });
    await assert.rejects(run(ws, 'sleep 10', { timeoutMs: 100 }), { name: 'TimeoutError' });
  });

  test('output is capped at outputLimitBytes with a note of what was cut', async () => {
    const ws = createJustBashWorkspace();
    const big = await run(ws, 'seq 1 5000', { outputLimitBytes: 4096 });
    assert.equal(big.exitCode, 0);
    assert.ok(Buffer.byteLength(big.stdout) <= 4096, `stdout is ${Buffer.byteLength(big.stdout)} bytes`);
    assert.match(big.stdout, /^1\n2\n3\n/);
    assert.match(big.stdout, /\[output cut: \d+ of \d+ bytes not shown\]\n$/);
    const small = await run(ws, 'echo small', { outputLimitBytes: 4096 });
    assert.equal(small.stdout, 'small\n');
  });
});

describe('capOutput', () => {
  const bytes = (s) => Buffer.byteLength(s);

  test('under the limit: unchanged', () => {
    assert.deepEqual(capOutput('a', 'b', 2), { stdout: 'a', stderr: 'b', truncated: false });
  });

  test('splits the budget, gives unused budget to the other stream, stays within the limit', () => {
    const even = capOutput('o'.repeat(1000), 'e'.repeat(1000), 400);
    assert.ok(bytes(even.stdout) <= 200 && bytes(even.stderr) <= 200 && even.truncated);
    assert.ok(bytes(even.stdout) > 100, 'stdout keeps most of its half');
    const lopsided = capOutput('o'.repeat(1000), 'short', 400);
    assert.equal(lopsided.stderr, 'short');
    assert.ok(bytes(lopsided.stdout) <= 395 && bytes(lopsided.stdout) > 300);
  });

  test('never splits a UTF-8 character', () => {
    for (let limit = 60; limit < 140; limit += 1) {
      const { stdout, stderr } = capOutput('é😀'.repeat(100), '', limit);
      assert.ok(!stdout.includes('\uFFFD'), `limit ${limit}`);
      assert.ok(bytes(stdout) + bytes(stderr) <= limit, `limit ${limit}`);
    }
  });

  test('a tiny limit still holds', () => {
    const { stdout, stderr } = capOutput('abcdef', 'ghijkl', 4);
    assert.ok(bytes(stdout) + bytes(stderr) <= 4);
  });
});
