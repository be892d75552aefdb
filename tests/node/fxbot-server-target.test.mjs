// The public-API bots suites a second time, through the server (issue 23): the same files, run
// with FXBOT_TARGET=server, so each createFxbot of theirs is a fxbot behind createFxbotServer on a
// loopback port, reached through connectFxbot (tests/support/fxbot-target.mjs).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const SUITES = [
  'fxbot.test.mjs',
  'fxbot-rules.test.mjs',
  'fxbot-signin.test.mjs',
  'fxbot-stream.test.mjs',
  'fxbot-turns.test.mjs',
  'fxbot-providers.test.mjs',
  'fxbot-memories.test.mjs',
  'fxbot-embedding.test.mjs',
  'fxbot-addons.test.mjs',
];

test('the public-API bots suites pass through connectFxbot against the server', { timeout: 300_000 }, async () => {
  // A node --test child of a test file reports to its parent unless NODE_TEST_CONTEXT is unset.
  const env = { ...process.env, FXBOT_TARGET: 'server' };
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=tap', ...SUITES.map((f) => join(here, f))], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise((resolve) => child.on('close', resolve));
  const pass = /^# pass (\d+)/m.exec(out)?.[1];
  const fail = /^# fail (\d+)/m.exec(out)?.[1];
  assert.equal(code, 0, out.slice(-20_000));
  assert.equal(fail, '0');
  assert.ok(Number(pass) >= 20, `${pass} tests passed through the server`);
});
