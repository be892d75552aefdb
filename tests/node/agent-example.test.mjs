// examples/node/prompt.mjs against a scripted loopback gateway: the answer streams to stdout; a
// missing key is a clear error and exit code 1.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { CATALOG, sse, textEvents } from './agent-support.mjs';

const script = fileURLToPath(new URL('../../examples/node/prompt.mjs', import.meta.url));
const run = promisify(execFile);
let server;
let chatUrl;
const seen = [];

before(async () => {
  server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.end(JSON.stringify(CATALOG));
      return;
    }
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push(JSON.parse(body));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sse(textEvents('Streamed ', 'from the ', 'loopback gateway.')));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  chatUrl = `http://127.0.0.1:${server.address().port}/v3/ai/language-model`;
});

after(() => new Promise((resolve) => server.close(resolve)));

test('prints the streamed answer', async () => {
  const { stdout } = await run(process.execPath, [script, 'say', 'hello'], {
    env: { ...process.env, AI_GATEWAY_API_KEY: '', FX_GATEWAY_CHAT_URL: chatUrl },
  });
  assert.equal(stdout, 'Streamed from the loopback gateway.\n');
  assert.equal(seen.at(-1).prompt.at(-1).content[0].text, 'say hello');
});

test('without a key for the real gateway: a clear error, exit code 1', async () => {
  const env = { ...process.env };
  delete env.AI_GATEWAY_API_KEY;
  delete env.FX_GATEWAY_CHAT_URL;
  await assert.rejects(run(process.execPath, [script, 'hi'], { env }), (error) => {
    assert.equal(error.code, 1);
    assert.match(error.stderr, /FX_AUTH_REQUIRED/);
    return true;
  });
});
