// Test support for createFxAgent: a scripted fake `fetch` that speaks the AI Gateway's SSE
// protocol and records every request, and a fake workspace.

export const CATALOG = {
  object: 'list',
  data: [
    { id: 'sdk/catalog-alpha', type: 'language', released: 2, tags: ['tool-use'] },
    {
      id: 'test/feature-model',
      type: 'language',
      released: 2,
      tags: ['tool-use', 'reasoning'],
      context_window: 128000,
      max_tokens: 8192,
    },
  ],
};

/** A catalog with a few real-looking ids, for "did you mean" suggestions. */
export const WIDE_CATALOG = {
  object: 'list',
  data: [
    ...CATALOG.data,
    { id: 'openai/gpt-5', type: 'language', released: 3, tags: ['tool-use'] },
    { id: 'openai/gpt-5-mini', type: 'language', released: 3, tags: ['tool-use'] },
    { id: 'openai/gpt-4.1', type: 'language', released: 2, tags: ['tool-use'] },
    { id: 'anthropic/claude-sonnet-4.5', type: 'language', released: 3, tags: ['tool-use'] },
  ],
};

export function sse(events, { done = true } = {}) {
  let out = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');
  if (done) out += 'data: [DONE]\n\n';
  return out;
}

export const finish = (unified = 'stop', input = 10, output = 3) => ({
  type: 'finish',
  finishReason: { unified, raw: unified },
  usage: { inputTokens: { total: input }, outputTokens: { total: output } },
});

export const textEvents = (...parts) => [...parts.map((delta) => ({ type: 'text-delta', id: 't', delta })), finish()];

export const toolEvents = (text, calls) => [
  ...(text ? [{ type: 'text-delta', delta: text }] : []),
  ...calls.map(([id, command]) => ({
    type: 'tool-call',
    toolCallId: id,
    toolName: 'terminal',
    input: JSON.stringify({ action: 'exec', command }),
  })),
  finish('tool-calls', 20, 5),
];

/**
 * A fake fetch. `script` is a list of replies for chat requests, each one of:
 *   { events: [...] }             a 200 SSE body sent as one chunk
 *   { chunks: ['...', ...] }      a 200 body in these chunks
 *   { status, body, headers }     any other response
 *   { stall: true, chunks }       200, the chunks, then a body that never ends until aborted
 *   { hang: true }                a fetch promise that settles only when aborted
 *   { error: 'message' }          fetch rejects with a TypeError (network failure)
 *   { raw: [values, ...] }         200, each value enqueued into the body as it is (non-bytes too)
 *   { noBody: true }              200 with no body at all
 *   { resolve: value }            fetch resolves to `value` (not a Response)
 *   { stream: (controller, init) => ... }   200, the body's `start` is this function
 */
export function fakeFetch(script, { catalog = CATALOG } = {}) {
  const calls = [];
  const queue = [...script];
  const encoder = new TextEncoder();
  const state = { calls, aborted: [], stalled: null, onStall: null };
  const fetch = async (url, init = {}) => {
    const call = {
      url: String(url),
      method: init.method ?? 'GET',
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body: init.body ? JSON.parse(new TextDecoder().decode(init.body)) : null,
      signal: init.signal,
    };
    calls.push(call);
    init.signal?.addEventListener('abort', () => state.aborted.push(call));
    if (call.method === 'GET') {
      if (!catalog) return new Response('nope', { status: 503 });
      return new Response(JSON.stringify(catalog), { status: 200, headers: { 'content-type': 'application/json' } });
    }
    const reply = queue.shift();
    if (!reply) throw new Error(`unexpected chat request #${calls.length}`);
    if (reply.error) throw new TypeError(reply.error);
    if ('resolve' in reply) return reply.resolve;
    if (reply.noBody) return new Response(null, { status: 200 });
    if (reply.hang) {
      return new Promise((_, reject) => {
        state.stalled = call;
        state.onStall?.();
        init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      });
    }
    if (reply.status && reply.status !== 200) {
      return new Response(reply.body ?? '', { status: reply.status, headers: reply.headers ?? {} });
    }
    const chunks = reply.events ? [sse(reply.events)] : reply.chunks ?? [];
    const body = new ReadableStream({
      start(controller) {
        if (reply.stream) return reply.stream(controller, init);
        if (reply.raw) {
          for (const value of reply.raw) controller.enqueue(value);
          controller.close();
          return undefined;
        }
        for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
        if (reply.stall) {
          state.stalled = call;
          state.onStall?.();
          init.signal?.addEventListener('abort', () => controller.error(new DOMException('aborted', 'AbortError')));
        } else {
          controller.close();
        }
        return undefined;
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  state.fetch = fetch;
  state.chats = () => calls.filter((c) => c.method === 'POST');
  state.untilStalled = () =>
    new Promise((resolve) => {
      if (state.stalled) resolve(state.stalled);
      else state.onStall = () => resolve(state.stalled);
    });
  return state;
}

export function fakeWorkspace({ permission = 'allow-sandboxed', run } = {}) {
  const calls = [];
  return {
    calls,
    info: { version: 1, root: '/workspace', cwd: '/workspace', home: '/home/visitor', gitAvailable: false, ephemeral: true },
    permission,
    async exec(input) {
      calls.push(input);
      if (run) return run(input);
      return { stdout: `ran ${input.command}\n`, stderr: '', exitCode: 0 };
    },
  };
}

export const env = { AI_GATEWAY_API_KEY: 'test-key' };

export async function collect(turn) {
  const updates = [];
  for await (const update of turn) updates.push(update);
  return updates;
}

export const agentText = (updates) =>
  updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.content.text).join('');

/** Resolves after `ms` milliseconds. */
export const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The non-system messages of a recorded chat request. */
export const conversation = (call) => call.body.prompt.filter((m) => m.role !== 'system');

/**
 * A session store around `memorySessionStore()` whose methods can be slowed or made to fail:
 * `hold.commit` (a promise) delays the next commits until it resolves; `fail.commit` /
 * `fail.remove` (an Error) make them throw.
 */
export function controllableStore(inner) {
  const control = { hold: {}, fail: {}, commits: [] };
  const wrap = (name) => async (...args) => {
    if (control.hold[name]) await control.hold[name];
    if (control.fail[name]) throw control.fail[name];
    if (name === 'commit') control.commits.push(args[0]);
    return inner[name](...args);
  };
  control.store = { load: wrap('load'), commit: wrap('commit'), list: wrap('list'), remove: wrap('remove') };
  return control;
}

/**
 * `inner` as a store with only the contract's four methods (no `append`): every commit reaches
 * it whole, through `commit`.
 */
export function commitOnly(inner) {
  return {
    load: (...args) => inner.load(...args),
    commit: (...args) => inner.commit(...args),
    list: (...args) => inner.list(...args),
    remove: (...args) => inner.remove(...args),
  };
}

/**
 * A panic in the wasm core shows up as a `WebAssembly.RuntimeError` (`unreachable`): thrown from a
 * core call, or escaping a microtask. This records every such error the process sees; call
 * `check()` at the end of a suite.
 */
export function trapGuard() {
  const seen = [];
  const record = (error) => {
    if (isTrap(error)) seen.push(error);
  };
  process.on('uncaughtException', record);
  process.on('unhandledRejection', record);
  return {
    record,
    check() {
      process.off('uncaughtException', record);
      process.off('unhandledRejection', record);
      if (seen.length > 0) throw new Error(`a wasm trap reached JavaScript: ${seen.map(String).join('; ')}`);
    },
  };
}

export function isTrap(error) {
  return error instanceof WebAssembly.RuntimeError || /unreachable|RuntimeError/.test(String(error?.stack ?? error));
}

/**
 * Wraps an adapter (a store, a workspace) so chosen methods never settle: after
 * `control.stall('commit')` every `commit` call waits until `control.release()` (which lets them
 * run on the inner adapter then, as a late answer) or forever. `control.called('commit')`
 * resolves once a stalled call arrived; `control.calls` records every call by name.
 */
export function stallable(inner) {
  const stalled = new Set();
  const parked = [];
  const arrivals = new Map();
  const control = { calls: [], adapter: {} };
  control.stall = (name) => stalled.add(name);
  control.unstall = (name) => stalled.delete(name);
  control.called = (name) =>
    new Promise((resolve) => {
      if (parked.some((p) => p.name === name)) resolve();
      else arrivals.set(name, [...(arrivals.get(name) ?? []), resolve]);
    });
  /** Lets every parked call run now; resolves with their settled outcomes. */
  control.release = () => Promise.allSettled(parked.splice(0).map((p) => p.run()));
  for (const name of Object.keys(inner)) {
    if (typeof inner[name] !== 'function') continue;
    control.adapter[name] = (...args) => {
      control.calls.push(name);
      if (!stalled.has(name)) return inner[name](...args);
      return new Promise((resolve, reject) => {
        parked.push({ name, run: () => Promise.resolve(inner[name](...args)).then(resolve, reject) });
        for (const arrived of arrivals.get(name) ?? []) arrived();
        arrivals.delete(name);
      });
    };
  }
  return control;
}

/** Resolves `{ settled: true, value | error }`, or `{ settled: false }` after `ms`. */
export function within(promise, ms) {
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ settled: false }), ms);
  });
  return Promise.race([
    Promise.resolve(promise).then(
      (value) => ({ settled: true, value }),
      (error) => ({ settled: true, error }),
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}
