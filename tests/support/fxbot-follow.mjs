// Following a bot reply, for tests/node/fxbot-stream.test.mjs and the bench row "follow a 2,000-
// delta bot reply" (tests/bench/fxbot-measure.mjs), in Node and in a browser page alike:
//
// - countingStores(fxbot): a memoryFxbotStore and a memorySessionStore whose calls are counted
//   (`docs.load`, `docs.list`, `sessions.load`, ...);
// - replyFetch(): a fetch for the chat URL whose replies are queued with `queue(n, { paced })`:
//   n text deltas, each its own network read; `paced` puts a macrotask between two reads, as a
//   network does, so a consumer that keeps up sees the deltas one by one;
// - follow(fxbot, botId, cursor): reads the stream from `cursor` to the first `turn_end`.

/** The loopback chat URL the fake fetch answers (never dialled). */
export const CHAT_URL = 'http://127.0.0.1:9/v3/ai/language-model';

/** A macrotask: `setImmediate` in Node, a MessageChannel message in a page (not clamped). */
function macrotask() {
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/** The SSE events of a reply of `n` deltas of 4 characters, each event its own chunk. */
function replyChunks(n) {
  const encoder = new TextEncoder();
  const chunks = [];
  for (let i = 0; i < n; i++) {
    const delta = `${String(i % 1000).padStart(3, '0')} `;
    chunks.push(encoder.encode(`data: {"type":"text-delta","id":"t","delta":"${delta}"}\n\n`));
  }
  chunks.push(
    encoder.encode(
      'data: {"type":"finish","finishReason":{"unified":"stop","raw":"stop"},"usage":{"inputTokens":{"total":10},"outputTokens":{"total":10}}}\n\n' +
        'data: [DONE]\n\n',
    ),
  );
  return chunks;
}

/** A fetch answering chat requests with the queued replies (a 2-delta reply when none is queued). */
export function replyFetch(passThrough = globalThis.fetch) {
  const queue = [];
  const seen = [];
  const fetch = async (url, init = {}) => {
    if (!String(url).startsWith(CHAT_URL)) return passThrough(url, init);
    seen.push({ authorization: new Headers(init.headers).get('authorization') });
    const { n, paced } = queue.shift() ?? { n: 2, paced: false };
    const chunks = replyChunks(n);
    let i = 0;
    const body = new ReadableStream({
      async pull(controller) {
        if (paced) await macrotask();
        if (i < chunks.length) controller.enqueue(chunks[i++]);
        if (i === chunks.length) controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  return {
    fetch,
    seen,
    /** The next chat request gets `n` deltas. */
    queue(n, { paced = false } = {}) {
      queue.push({ n, paced });
    },
  };
}

/** Wraps every method of `store` to count its calls in `counts` under `${name}.${method}`. */
function counted(store, name, counts) {
  const out = {};
  for (const method of Object.keys(store)) {
    if (typeof store[method] !== 'function') continue;
    out[method] = (...args) => {
      counts[`${name}.${method}`] = (counts[`${name}.${method}`] ?? 0) + 1;
      return store[method](...args);
    };
  }
  return out;
}

/**
 * The stores of an fxbot with their calls counted: `counts` (a live object), `reset()` (zero it),
 * `snapshot()` (a copy with every key present).
 */
export function countingStores({ memoryFxbotStore, memorySessionStore }) {
  const counts = {};
  const store = counted(memoryFxbotStore(), 'docs', counts);
  const sessionStore = counted(memorySessionStore(), 'sessions', counts);
  return {
    store,
    sessionStore,
    counts,
    reset() {
      for (const key of Object.keys(counts)) delete counts[key];
    },
    snapshot() {
      const at = (key) => counts[key] ?? 0;
      return {
        sessionLoads: at('sessions.load'),
        docReads: at('docs.load') + at('docs.list'),
        all: { ...counts },
      };
    },
  };
}

/**
 * The lines of `botId`'s stream from `cursor` to the first `turn_end` (included); `marks.text`,
 * when `marks` is given, gets the `performance.now()` of the first text line.
 */
export async function follow(fxbot, botId, cursor, marks = null) {
  const lines = [];
  for await (const line of fxbot.chat.stream(botId, cursor)) {
    if (marks !== null && marks.text === undefined && line.type === 'text') marks.text = performance.now();
    lines.push(line);
    if (line.type === 'turn_end') break;
  }
  return lines;
}

/**
 * An fxbot on counting stores and the reply fetch, with a gateway provider and one bot that has
 * `earlier` finished turns (short replies) in its chat.
 */
export async function botWithTurns({ createFxbot, memoryFxbotStore, memorySessionStore }, earlier) {
  const stores = countingStores({ memoryFxbotStore, memorySessionStore });
  const replies = replyFetch();
  const fxbot = await createFxbot({
    store: stores.store,
    sessionStore: stores.sessionStore,
    fetch: replies.fetch,
    env: { FX_GATEWAY_CHAT_URL: CHAT_URL },
  });
  const provider = await fxbot.providers.add({ kind: 'gateway', apiKey: 'follow-key', model: 'bench/model' });
  const bot = await fxbot.bots.create({ name: 'Follower', provider: provider.id });
  for (let t = 0; t < earlier; t++) {
    const sent = await fxbot.chat.send(bot.id, { text: `earlier ${t}`, messageId: `earlier-${t}` });
    await follow(fxbot, bot.id, sent.cursor);
  }
  return { fxbot, bot, stores, replies };
}

/**
 * Sends one message whose reply is `deltas` paced deltas and follows it with one consumer:
 * the time from `send` to the consumer's `turn_end` (`ms`) and to its first text line
 * (`firstLineMs`), the store calls in that time, and the text.
 */
export async function followReply({ fxbot, bot, stores, replies }, deltas, messageId = 'followed') {
  replies.queue(deltas, { paced: true });
  stores.reset();
  const started = performance.now();
  const sent = await fxbot.chat.send(bot.id, { text: 'a long reply, please', messageId });
  const sendCalls = stores.snapshot();
  stores.reset();
  const marks = {};
  const lines = await follow(fxbot, bot.id, sent.cursor, marks);
  const ms = performance.now() - started;
  const firstLineMs = marks.text === undefined ? null : marks.text - started;
  const text = lines.filter((l) => l.type === 'text').map((l) => l.text).join('');
  return { ms, firstLineMs, send: sendCalls, follow: stores.snapshot(), lines, text, sent };
}
