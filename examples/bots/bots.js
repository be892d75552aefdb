// A small bots app on createFxbot (fx-wasm/fxbot): a bot list with pins, a chat that streams,
// file attachments, and a reload that resumes from stream(0). Bots, chats and files live in this
// browser's IndexedDB (the defaults); the model is the dev gateway's on the same origin (its
// scripted demo model unless it runs with AI_GATEWAY_API_KEY), so no key lives in the page.
//
// Run `node examples/dev-gateway/server.mjs` and open http://127.0.0.1:8787/examples/bots/.
// With `?server` the same page uses fxbot's server on its origin through connectFxbot
// (`./scripts/try.sh --server`: the server on PGlite, offline with the demo model).

import { createFxbot } from '/pkg/fxbot/index.js';
import { connectFxbot, reduceLines } from '/pkg/fxbot/client.js';
import { renderMarkdown } from '/examples/shared/markdown.js';

const $ = (id) => document.getElementById(id);
const CHAT_URL = new URL('/v3/ai/language-model', location.href).href;
const DEMO_MODEL = 'fx-demo/scripted';
// `?server`: the bots of fxbot's server on this origin (examples/bots/server.mjs), not this tab's.
const SERVER = new URLSearchParams(location.search).has('server');
const SELECTED = 'fx-bots-example.selected';
const COLORS = { gray: '#8c959f', red: '#cf222e', orange: '#e16f24', amber: '#bf8700', green: '#1a7f37',
  teal: '#1b7c83', blue: '#0969da', indigo: '#4f46e5', purple: '#8250df', pink: '#bf3989' };

let fxbot = null;
let selected = null;
/** The stream of the selected bot: its AbortController. */
let following = null;
let turns = [];
/** Whether the selected bot's stream is still open (it ends at once for a bot without a chat). */
let streaming = false;

function status(text, isError = false) {
  $('status').textContent = text;
  $('status').classList.toggle('error', isError);
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

async function renderBots() {
  const bots = await fxbot.bots.list();
  const list = $('bots');
  list.replaceChildren(
    ...bots.map((bot) => {
      const li = el('li', bot.id === selected ? 'selected' : '');
      li.dataset.id = bot.id;
      const avatar = el('span', 'avatar');
      avatar.style.background = COLORS[bot.color] ?? COLORS.blue;
      const pin = el('button', 'pin', '★');
      pin.type = 'button';
      pin.title = bot.pinned ? 'Unpin' : 'Pin';
      pin.setAttribute('aria-pressed', String(bot.pinned));
      pin.addEventListener('click', async (event) => {
        event.stopPropagation();
        try {
          await fxbot.bots.update(bot.id, { pinned: !bot.pinned });
          await renderBots();
        } catch (error) {
          status(error.message, true);
        }
      });
      li.append(avatar, el('span', 'name', bot.name), ...(bot.busy ? [el('span', 'busy', 'replying…')] : []), pin);
      li.addEventListener('click', () => select(bot.id));
      return li;
    }),
  );
}

function renderTranscript() {
  const items = [];
  for (const turn of turns) {
    const user = el('li', 'user', turn.input);
    if (turn.files.length > 0) {
      const files = el('div', 'attachments');
      for (const file of turn.files) files.append(el('span', 'attachment', file.name));
      user.append(files);
    }
    items.push(user);
    const reply = el('li', `bot ${turn.status}`);
    // Text parts between tool calls are joined and shown as Markdown.
    let text = '';
    const flush = () => {
      if (text) reply.append(renderMarkdown(text));
      text = '';
    };
    for (const part of turn.parts) {
      if (part.type === 'text') text += part.text;
      else if (part.type === 'tool') {
        flush();
        reply.append(el('div', 'tool', `${part.name} · ${part.status}`));
      }
    }
    flush();
    if (turn.status === 'running' && turn.parts.length === 0) reply.append('…');
    if (turn.error) reply.append(el('div', 'tool', turn.error.message));
    if (turn.status === 'cancelled') reply.append(el('div', 'tool', '(stopped)'));
    items.push(reply);
  }
  $('transcript').replaceChildren(...items);
  items.at(-1)?.scrollIntoView({ block: 'end' });
  const running = turns.some((t) => t.status === 'running');
  $('stop').disabled = !running;
}

async function follow(botId) {
  following?.abort();
  const controller = new AbortController();
  following = controller;
  turns = [];
  renderTranscript();
  streaming = true;
  try {
    for await (const line of fxbot.chat.stream(botId, 0, { signal: controller.signal })) {
      if (controller.signal.aborted) return;
      turns = reduceLines(turns, line);
      renderTranscript();
      if (line.type === 'turn_start' || line.type === 'turn_end') await renderBots();
    }
  } catch (error) {
    if (!controller.signal.aborted) status(error.message, true);
  } finally {
    if (following === controller) streaming = false;
  }
}

async function select(botId) {
  selected = botId;
  localStorage.setItem(SELECTED, botId);
  const bot = await fxbot.bots.get(botId);
  $('bot-title').textContent = bot.name;
  for (const id of ['text', 'files', 'send']) $(id).disabled = false;
  await renderBots();
  follow(botId);
}

function base64(buffer) {
  const bytes = new Uint8Array(buffer);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

async function send() {
  const text = $('text').value;
  const chosen = [...$('files').files];
  if (!selected || (!text.trim() && chosen.length === 0)) return;
  const files = await Promise.all(
    chosen.map(async (file) => ({ name: file.name, type: file.type || 'application/octet-stream', data: base64(await file.arrayBuffer()) })),
  );
  try {
    // A new id per message: a retry of the same message would reuse it and run nothing twice.
    const sent = await fxbot.chat.send(selected, { text, messageId: crypto.randomUUID(), files });
    $('text').value = '';
    $('files').value = '';
    $('chosen').textContent = '';
    status(`Sent (turn ${sent.turn}).`);
    // The first message starts the chat: a stream opened before it has ended.
    if (!streaming) follow(selected);
  } catch (error) {
    status(`${error.message} (${error.status})`, true);
  }
}

async function start() {
  // The one line that switches between in-page bots and the server's.
  fxbot = SERVER ? await connectFxbot({ url: location.origin }) : await createFxbot({ env: { FX_GATEWAY_CHAT_URL: CHAT_URL } });
  // One AI Gateway provider through the dev gateway (it answers for the demo model itself).
  const settings = await fxbot.settings.get();
  if (!settings.defaultProvider) {
    const provider = await fxbot.providers.add({ kind: 'gateway', apiKey: 'dev-gateway', model: DEMO_MODEL, name: 'Dev gateway' });
    await fxbot.settings.update({ defaultProvider: provider.id });
  }
  $('create').disabled = false;
  status('Ready.');
  const bots = await fxbot.bots.list();
  const remembered = localStorage.getItem(SELECTED);
  const first = bots.find((b) => b.id === remembered) ?? bots[0];
  if (first) await select(first.id);
  else await renderBots();
}

$('new-bot').addEventListener('submit', async (event) => {
  event.preventDefault();
  try {
    const bot = await fxbot.bots.create({ name: $('bot-name').value.trim() || undefined });
    $('bot-name').value = '';
    await select(bot.id);
  } catch (error) {
    status(error.message, true);
  }
});
$('composer').addEventListener('submit', (event) => {
  event.preventDefault();
  send();
});
$('text').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
});
$('files').addEventListener('change', () => {
  $('chosen').textContent = [...$('files').files].map((f) => f.name).join(', ');
});
$('stop').addEventListener('click', () => selected && fxbot.chat.stop(selected));

start().catch((error) => status(`Could not start: ${error.message}`, true));
