// Fake model providers on 127.0.0.1 (fxbot DESIGN §15.2), one HTTP server speaking each
// protocol's real wire format under its own prefix:
//
//   /v1/...                  Chat Completions (a `custom` or server kind's base: /v1)
//   /openai/v1/...           OpenAI Responses
//   /anthropic/v1/...        Anthropic Messages (refuses a request with Origin but without
//                            `anthropic-dangerous-direct-browser-access: true`, as the API does)
//   /gemini/v1beta/...       Gemini streamGenerateContent?alt=sse
//
// Each answers its model list (GET .../models) and, for a model call, a scripted turn: the first
// step calls `library_list` (its arguments split across two deltas), the step after the tool
// result answers text with usage (and so does a provider switch's summary request). `key` (when set) is the only key accepted: another gets 401.
// `hostFetch(fake)` is a fetch that sends the fixed base URLs of the key kinds to the fake.

import http from 'node:http';

const FIXED = {
  'https://api.openai.com/v1': '/openai/v1',
  'https://api.anthropic.com/v1': '/anthropic/v1',
  'https://generativelanguage.googleapis.com/v1beta': '/gemini/v1beta',
  'https://api.x.ai/v1': '/v1',
  'https://api.groq.com/openai/v1': '/v1',
  'https://api.mistral.ai/v1': '/v1',
  'https://api.deepseek.com/v1': '/v1',
  'https://openrouter.ai/api/v1': '/v1',
};

const sse = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');
const named = (events) => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');

/** A provider switch's summary request (answered with the text at once). */
const summary = (body) => JSON.stringify(body).includes('handing this conversation over');

/** The steps of a scripted turn per protocol: a tool call, then text. */
const turns = {
  chat(body) {
    const answered = summary(body) || body.messages.some((m) => m.role === 'tool');
    const chunk = (delta, finish = null) => ({
      id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1764730000, model: body.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null,
    });
    const usage = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1764730000, model: body.model, choices: [],
      usage: { prompt_tokens: 120, completion_tokens: 9, total_tokens: 129 } };
    if (!answered) {
      return sse([
        chunk({ role: 'assistant', content: '' }),
        chunk({ tool_calls: [{ index: 0, id: 'call_fake1', type: 'function', function: { name: 'library_list', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '}' } }] }),
        chunk({}, 'tool_calls'),
        usage,
      ]) + 'data: [DONE]\n\n';
    }
    return sse([chunk({ role: 'assistant', content: '' }), chunk({ content: 'You have ' }), chunk({ content: 'no files yet.' }), chunk({}, 'stop'), usage]) + 'data: [DONE]\n\n';
  },
  responses(body) {
    const answered = summary(body) || body.input.some((i) => i.type === 'function_call_output');
    const created = { type: 'response.created', sequence_number: 0, response: { id: 'resp_1', object: 'response', status: 'in_progress', model: body.model, output: [] } };
    const completed = { type: 'response.completed', sequence_number: 9, response: { id: 'resp_1', object: 'response', status: 'completed', model: body.model, output: [],
      usage: { input_tokens: 120, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 129 } } };
    if (!answered) {
      const item = { id: 'fc_1', type: 'function_call', status: 'in_progress', arguments: '', call_id: 'call_fake1', name: 'library_list' };
      return named([
        created,
        { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item },
        { type: 'response.function_call_arguments.delta', sequence_number: 2, item_id: 'fc_1', output_index: 0, delta: '{' },
        { type: 'response.function_call_arguments.delta', sequence_number: 3, item_id: 'fc_1', output_index: 0, delta: '}' },
        { type: 'response.function_call_arguments.done', sequence_number: 4, item_id: 'fc_1', output_index: 0, arguments: '{}' },
        { type: 'response.output_item.done', sequence_number: 5, output_index: 0, item: { ...item, status: 'completed', arguments: '{}' } },
        completed,
      ]);
    }
    return named([
      created,
      { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { id: 'msg_1', type: 'message', status: 'in_progress', content: [], role: 'assistant' } },
      { type: 'response.output_text.delta', sequence_number: 2, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'You have ', logprobs: [] },
      { type: 'response.output_text.delta', sequence_number: 3, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'no files yet.', logprobs: [] },
      completed,
    ]);
  },
  anthropic(body) {
    const answered = summary(body) || body.messages.some((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result'));
    const start = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null,
      usage: { input_tokens: 120, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 } } };
    if (!answered) {
      return named([
        start,
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_fake1', name: 'library_list', input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '}' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } },
        { type: 'message_stop' },
      ]);
    }
    return named([
      start,
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'ping' },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'You have ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'no files yet.' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } },
      { type: 'message_stop' },
    ]);
  },
  gemini(body) {
    const answered = summary(body) || body.contents.some((c) => c.parts.some((p) => p.functionResponse));
    const usage = { promptTokenCount: 120, candidatesTokenCount: 9, totalTokenCount: 129 };
    const chunk = (parts, finishReason) => ({ candidates: [{ content: { parts, role: 'model' }, ...(finishReason ? { finishReason } : {}), index: 0 }], usageMetadata: usage, modelVersion: 'gemini-fake' });
    const frame = (events) => events.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`).join('');
    if (!answered) return frame([chunk([{ functionCall: { name: 'library_list', args: {} } }], 'STOP')]);
    return frame([chunk([{ text: 'You have ' }]), chunk([{ text: 'no files yet.' }], 'STOP')]);
  },
};

/** A 32-dimension hashed bag of the text's words (an embedding for tests). */
function hashVector(text) {
  const v = new Array(32).fill(0);
  for (const word of String(text).toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)) {
    let h = 0x811c9dc5;
    for (let i = 0; i < word.length; i += 1) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193) >>> 0;
    v[h % 32] += 1;
  }
  if (v.every((x) => x === 0)) v[0] = 1;
  return v;
}

/** Starts the fake on 127.0.0.1; `close()` stops it. */
export async function fakeProviders({ key = null, models = ['fake-model'] } = {}) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url, 'http://127.0.0.1');
      const record = { method: req.method, path: url.pathname, search: url.search, headers: req.headers, body: text ? JSON.parse(text) : null };
      requests.push(record);
      const anthropic = url.pathname.startsWith('/anthropic/');
      const gemini = url.pathname.startsWith('/gemini/');
      const given = anthropic ? req.headers['x-api-key'] : gemini ? req.headers['x-goog-api-key'] : req.headers.authorization?.replace(/^Bearer /, '');
      if (key && given !== key) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }));
        return;
      }
      if (anthropic && (!req.headers['anthropic-version'] || (req.headers.origin && req.headers['anthropic-dangerous-direct-browser-access'] !== 'true'))) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'CORS requests must set the anthropic-dangerous-direct-browser-access header' } }));
        return;
      }
      // Bases whose model list is missing (404) or broken (500), for the key check.
      if (req.method === 'GET' && /^\/(nolist|broken)\//.test(url.pathname)) {
        res.writeHead(url.pathname.startsWith('/broken/') ? 500 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not here' } }));
        return;
      }
      // Ollama's own API: its model list and each model's context window.
      if (req.method === 'GET' && url.pathname === '/api/tags') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ models: [{ name: 'llama3.2:latest', model: 'llama3.2:latest', size: 2019393189, details: { family: 'llama' } }] }));
        return;
      }
      if (req.method === 'POST' && url.pathname === '/api/show') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ parameters: 'stop "<|eot_id|>"', model_info: { 'general.architecture': 'llama', 'llama.context_length': 8192 } }));
        return;
      }
      if (req.method === 'GET' && url.pathname.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        const list = gemini
          ? { models: models.map((id) => ({ name: `models/${id}`, inputTokenLimit: 1048576 })) }
          : { object: 'list', data: models.map((id) => ({ id, object: 'model', owned_by: 'fake' })) };
        res.end(JSON.stringify(list));
        return;
      }
      // Embeddings, OpenAI's and Gemini's: feature hashing of the words (similar texts are
      // near), or a 500 for a model named "broken-embedder".
      const embedsOpenAi = req.method === 'POST' && url.pathname.endsWith('/embeddings');
      const embedsGemini = req.method === 'POST' && url.pathname.includes(':batchEmbedContents');
      if (embedsOpenAi || embedsGemini) {
        const model = embedsOpenAi ? record.body.model : url.pathname.split('/models/')[1]?.split(':')[0];
        if (model === 'broken-embedder') {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'the embedding model is down' } }));
          return;
        }
        const texts = embedsOpenAi ? record.body.input : record.body.requests.map((r) => r.content.parts[0].text);
        const vectors = texts.map(hashVector);
        const answer = embedsOpenAi
          ? { object: 'list', data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })).reverse(), model }
          : { embeddings: vectors.map((values) => ({ values })) };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
        return;
      }
      const protocol = url.pathname.endsWith('/chat/completions') ? 'chat'
        : url.pathname.endsWith('/responses') ? 'responses'
        : url.pathname.endsWith('/messages') ? 'anthropic'
        : url.pathname.includes(':streamGenerateContent') ? 'gemini' : null;
      if (req.method !== 'POST' || !protocol) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${url.pathname}` } }));
        return;
      }
      record.protocol = protocol;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      // Two writes, cut in the middle of an event: the decoder joins them.
      const body = turns[protocol](record.body);
      const cut = Math.floor(body.length / 2);
      res.write(body.slice(0, cut));
      setTimeout(() => res.end(body.slice(cut)), 5);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    requests,
    calls: () => requests.filter((r) => r.protocol),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * A fetch that sends the key kinds' fixed base URLs to `fake` (everything else as it is);
 * `origin` adds the Origin header a page's requests carry.
 */
export function hostFetch(fake, { origin = null } = {}) {
  const sent = [];
  const fetchOut = (input, init = {}) => {
    let url = String(input);
    // As a page's fetch would: every request carries the page's Origin.
    if (origin) init = { ...init, headers: { ...Object.fromEntries(new Headers(init.headers).entries()), origin } };
    sent.push({ url, method: init.method ?? 'GET', headers: Object.fromEntries(new Headers(init.headers).entries()) });
    for (const [base, prefix] of Object.entries(FIXED)) {
      if (url.startsWith(base)) {
        url = fake.origin + prefix + url.slice(base.length);
        break;
      }
    }
    return fetch(url, init);
  };
  fetchOut.sent = sent;
  return fetchOut;
}
