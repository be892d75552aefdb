// The command lines that start the try page: `./scripts/try.sh` and the dev gateway's
// `server.mjs`. --help prints the usage and exits 0 without setting up, building or listening;
// an unknown option, a stray argument or a bad port is refused, with a message naming it, before
// anything else runs (try.sh exits 2 there, server.mjs 1).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { parseCommandLine } from '../../examples/dev-gateway/server.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TRY = join(root, 'scripts', 'try.sh');
const SERVER = join(root, 'examples', 'dev-gateway', 'server.mjs');

/** Runs a command with a short deadline: one that set up, built or served would time out. */
function run(command, args, env = {}) {
  const result = spawnSync(command, args, { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 20_000 });
  assert.equal(result.error, undefined, `${command} ${args.join(' ')} finished in time`);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('try.sh --help (and -h) prints the usage and exits 0, before setting anything up', () => {
  for (const flag of ['--help', '-h']) {
    const { code, stdout, stderr } = run(TRY, [flag]);
    assert.equal(code, 0, flag);
    assert.match(stdout, /^Usage: \.\/scripts\/try\.sh \[--demo\] \[--server\] \[--port N\]/, flag);
    for (const word of ['--demo', '--server', '--port N', '--help', 'AI_GATEWAY_API_KEY', 'PORT=N', 'prints']) assert.ok(stdout.includes(word), `${flag}: ${word}`);
    assert.equal(stderr, '', flag);
  }
  // --help wins wherever it stands.
  assert.equal(run(TRY, ['--demo', '--help']).code, 0);
});

test('try.sh refuses an unknown option, a stray argument and a bad port, saying which', () => {
  const cases = [
    [['--bogus'], /unknown option '--bogus'/],
    [['--demo', 'extra'], /unknown option 'extra'/],
    [['-d'], /unknown option '-d'/],
    [['--port'], /--port needs a port number/],
    [['--port', 'http'], /--port takes a port number from 0 to 65535, got 'http'/],
    [['--port=70000'], /--port takes a port number from 0 to 65535, got '70000'/],
  ];
  for (const [args, message] of cases) {
    const { code, stdout, stderr } = run(TRY, args);
    assert.equal(code, 2, args.join(' '));
    assert.match(stderr, message, args.join(' '));
    assert.match(stderr, /see \.\/scripts\/try\.sh --help/, args.join(' '));
    assert.equal(stdout, '', `${args.join(' ')}: nothing was set up or built`);
  }
  const env = run(TRY, ['--demo'], { PORT: 'eighty' });
  assert.equal(env.code, 2);
  assert.match(env.stderr, /PORT takes a port number from 0 to 65535, got 'eighty'/);
});

test('server.mjs --help prints its usage and exits 0 without listening', () => {
  const { code, stdout } = run(process.execPath, [SERVER, '--help']);
  assert.equal(code, 0);
  assert.match(stdout, /^Usage: node examples\/dev-gateway\/server\.mjs \[--demo\] \[--port N\]/);
  assert.doesNotMatch(stdout, /fx dev gateway: http/);
});

test('server.mjs refuses unknown options and stray arguments', () => {
  for (const [args, message] of [
    [['--bogus'], /Unknown option '--bogus'/],
    [['serve'], /Unexpected argument 'serve'/],
    [['--port', 'x'], /--port must be a port number from 0 to 65535, got "x"/],
  ]) {
    const { code, stderr } = run(process.execPath, [SERVER, ...args]);
    assert.equal(code, 1, args.join(' '));
    assert.match(stderr, message, args.join(' '));
  }
});

test('parseCommandLine: --port, --port=, PORT, --demo and FX_DEV_GATEWAY_DEMO', () => {
  assert.deepEqual(parseCommandLine([], {}), { help: false, demo: false, port: 8787 });
  assert.deepEqual(parseCommandLine(['--port', '0'], {}), { help: false, demo: false, port: 0 });
  assert.deepEqual(parseCommandLine(['--port=9000', '--demo'], { PORT: '1' }), { help: false, demo: true, port: 9000 });
  assert.deepEqual(parseCommandLine([], { PORT: '1234', FX_DEV_GATEWAY_DEMO: '1' }), { help: false, demo: true, port: 1234 });
  assert.throws(() => parseCommandLine([], { PORT: '-1' }), /PORT must be a port number/);
  assert.throws(() => parseCommandLine(['--port', '65536'], {}), /--port must be a port number/);
  assert.throws(() => parseCommandLine(['--port'], {}), /--port/);
});
