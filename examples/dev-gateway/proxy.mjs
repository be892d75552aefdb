// The dev gateway's forwarding: sends the page's gateway requests on to the real AI Gateway (or a
// configured upstream) with one credential, the visitor's own or the server's key, chosen by the
// caller. Cookies and browser context are dropped, the server key never appears in a response,
// and a client that hangs up aborts the upstream.

// Request headers never forwarded: hop-by-hop ones, the page's credentials, and browser context.
const DROPPED_REQUEST_HEADERS = new Set([
  'authorization',
  'connection',
  'content-length',
  'cookie',
  'host',
  'keep-alive',
  'origin',
  'proxy-authorization',
  'proxy-connection',
  'referer',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  // Let the upstream answer uncompressed: fetch would decode it and the length would lie.
  'accept-encoding',
]);

// Response headers passed back to the page.
const KEPT_RESPONSE_HEADERS = ['content-type', 'cache-control', 'retry-after', 'x-request-id'];

/** Checks an upstream base URL: https, or http on a loopback host. */
export function checkUpstream(upstream) {
  let url;
  try {
    url = new URL(upstream);
  } catch {
    throw new TypeError(`dev gateway: upstream ${JSON.stringify(upstream)} is not a URL`);
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new TypeError('dev gateway: the upstream must be https, or http on a loopback address');
  }
  if (url.username || url.password) throw new TypeError('dev gateway: the upstream URL must not carry credentials');
  return url.origin + url.pathname.replace(/\/+$/, '');
}

function forwardedHeaders(req, authorization) {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    const lower = name.toLowerCase();
    if (DROPPED_REQUEST_HEADERS.has(lower) || lower.startsWith('sec-') || lower.startsWith('x-forwarded-')) continue;
    headers.set(lower, Array.isArray(value) ? value.join(', ') : value);
  }
  headers.set('authorization', authorization);
  return headers;
}

function sendJsonError(res, status, type, message) {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ error: { type, message } }));
}

/**
 * Forwards `req` (whose body, if any, is `body`) to `<upstream><path>` with the `authorization`
 * header value given (the page's own is dropped first) and streams the answer back to `res`.
 * `fetchImpl` defaults to the global fetch.
 */
export async function proxyRequest(req, res, { upstream, authorization, path, body, fetchImpl = globalThis.fetch }) {
  const controller = new AbortController();
  const hangUp = () => controller.abort();
  res.on('close', hangUp);
  try {
    let answer;
    try {
      answer = await fetchImpl(`${upstream}${path}`, {
        method: req.method,
        headers: forwardedHeaders(req, authorization),
        body: body && body.length > 0 ? body : undefined,
        signal: controller.signal,
        redirect: 'manual',
      });
    } catch (err) {
      if (controller.signal.aborted) return;
      // The message names the upstream only; the key is in a header, never in a URL.
      sendJsonError(res, 502, 'dev_gateway_upstream_unreachable', `the dev gateway could not reach ${upstream}: ${err.message}`);
      return;
    }
    const headers = { 'cache-control': 'no-store' };
    for (const name of KEPT_RESPONSE_HEADERS) {
      const value = answer.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    res.writeHead(answer.status, headers);
    res.flushHeaders();
    if (!answer.body) {
      res.end();
      return;
    }
    const reader = answer.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
      }
      res.end();
    } catch {
      // The page hung up (which aborted the upstream) or the upstream broke off mid-stream.
      res.destroy();
    }
  } finally {
    res.off('close', hangUp);
  }
}
