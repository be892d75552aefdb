// Node-only test support (agent-support.mjs is also loaded by pages, so it imports nothing of
// Node's): an fx home for the fx CLI oracle (FX_NATIVE).

import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * A temporary fx home holding the native session directory `files` (from `exportNativeSession`)
 * as session `id`, with the modes the fx CLI insists on (0700 folders, 0600 files): run the CLI
 * with `HOME` set to the returned path, and remove it afterwards.
 */
export function nativeHome(id, files, prefix = 'fx-home-') {
  const home = mkdtempSync(join(tmpdir(), prefix));
  const dir = join(home, '.fx', 'sessions', id);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(join(home, '.fx'), 0o700);
  chmodSync(join(home, '.fx', 'sessions'), 0o700);
  for (const [path, bytes] of Object.entries(files)) {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, bytes, { mode: 0o600 });
  }
  return home;
}

/**
 * Continues session `id` (the native session directory `files`) in the fx CLI at `fx` with
 * `prompt`, against a loopback AI Gateway that lists no models and answers every chat request with
 * the SSE text `reply`; resolves to the chat requests the CLI made. The temporary fx home is
 * removed afterwards.
 */
export async function continueInCli(fx, id, files, prompt, reply, prefix = 'fx-cli-') {
  const requests = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [] }));
        return;
      }
      requests.push(JSON.parse(body));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(reply);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const home = nativeHome(id, files, prefix);
  try {
    const base = `http://127.0.0.1:${server.address().port}`;
    const env = {
      HOME: home,
      PATH: process.env.PATH,
      AI_GATEWAY_API_KEY: 'test-key',
      FX_GATEWAY_BASE_URL: base,
      FX_GATEWAY_CHAT_URL: `${base}/v3/ai/language-model`,
      FX_SKIP_ONBOARDING: '1',
      FX_AUTO_UPGRADE: '0',
      FX_DISABLE_KEYCHAIN: '1',
      FX_SYNC_UPDATES: '0',
    };
    // Asynchronous: the loopback gateway answers from this process.
    await new Promise((resolve, reject) =>
      execFile(fx, ['ask', '--yolo', '--resume', id, prompt], { env, timeout: 60_000 }, (error, stdout, stderr) =>
        error ? reject(new Error(`fx ask failed: ${error.message}\n${stdout}\n${stderr}`)) : resolve(),
      ),
    );
    return requests;
  } finally {
    server.close();
    rmSync(home, { recursive: true, force: true });
  }
}
