// fx-wasm/fxbot/server in Node (the `node` condition): server.js plus `listen(handler, { port,
// host })`, which serves a fetch-style handler from node:http. Kept apart so that a browser
// build of server.js never sees a `node:` import.

import { createServer } from 'node:http';

export * from './server.js';

/**
 * The body of a Node request as a ReadableStream that reads only as fast as it is pulled, and
 * stops reading once cancelled (a body refused part way is not read on).
 */
function bodyOf(req) {
  let done = false;
  return new ReadableStream(
    {
      start(controller) {
        req.on('data', (chunk) => {
          if (done) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if (controller.desiredSize <= 0) req.pause();
        });
        req.on('end', () => {
          if (done) return;
          done = true;
          controller.close();
        });
        req.on('error', (error) => {
          if (done) return;
          done = true;
          controller.error(error);
        });
      },
      pull() {
        req.resume();
      },
      cancel() {
        done = true;
        req.pause();
      },
    },
    { highWaterMark: 256 * 1024, size: (chunk) => chunk.byteLength },
  );
}

/** A Request for a Node request: the body streams in as the handler reads it. */
function toRequest(req, origin, signal) {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const method = req.method ?? 'GET';
  const init = { method, headers, signal };
  if (method !== 'GET' && method !== 'HEAD') {
    init.body = bodyOf(req);
    init.duplex = 'half';
  }
  return new Request(new URL(req.url ?? '/', origin), init);
}

/** Writes `response` to `res`, chunk by chunk, honouring backpressure; stops when the client goes. */
async function send(response, req, res) {
  const headers = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  // A body refused early: drop the connection rather than read the rest of it.
  if (headers.connection === 'close' && !req.complete) {
    res.end(await response.text());
    req.destroy();
    return;
  }
  if (!response.body) {
    res.end();
    return;
  }
  if (typeof res.flushHeaders === 'function') res.flushHeaders();
  const reader = response.body.getReader();
  const gone = () => reader.cancel().catch(() => {});
  res.on('close', gone);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
      if (res.destroyed) break;
    }
  } catch {
    // The handler's body failed or the client went: end what was sent.
  } finally {
    res.off('close', gone);
    if (!res.destroyed) res.end();
  }
}

/**
 * Serves `handler` on `host:port` (default 127.0.0.1, port 0: any free one). Resolves to
 * `{ url, port, server, close() }` once listening; `close()` stops accepting and ends open
 * connections (event streams included).
 */
export function listen(handler, { port = 0, host = '127.0.0.1' } = {}) {
  if (typeof handler !== 'function') throw new TypeError('listen(handler, options): handler must be a function of a Request');
  const server = createServer((req, res) => {
    const aborter = new AbortController();
    res.on('close', () => aborter.abort());
    const origin = `http://${req.headers.host && /^[\w.:[\]-]+$/.test(req.headers.host) ? req.headers.host : 'localhost'}`;
    let request;
    try {
      request = toRequest(req, origin, aborter.signal);
    } catch {
      res.writeHead(400, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ error: { status: 400, code: 'HTTP_BAD_REQUEST', message: 'the request could not be read' } }));
      return;
    }
    Promise.resolve()
      .then(() => handler(request))
      .then((response) => send(response, req, res))
      .catch(() => {
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          res.end(JSON.stringify({ error: { status: 500, code: 'HTTP_INTERNAL', message: 'the server failed to answer this request' } }));
        } else {
          res.destroy();
        }
      });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        url: `http://${shownHost}:${address.port}`,
        port: address.port,
        server,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections?.();
          }),
      });
    });
  });
}
