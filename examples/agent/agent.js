// A small chat page on createFxAgent: a streamed transcript with tool calls, cancel, and the
// model and mode selects. It talks to a loopback gateway (FX_GATEWAY_CHAT_URL), so no API key
// lives in the page; sessions stay in memory, the chosen model and mode in localStorage.
//
// Run `node examples/dev-gateway/server.mjs` and open http://127.0.0.1:8787/examples/agent/ (the
// dev gateway serves this page and answers on the same origin: a scripted demo model, or the real
// AI Gateway when it has AI_GATEWAY_API_KEY). `?gateway=<chat URL>` points elsewhere.

import { createFxAgent } from '/pkg/index.js';
import { renderMarkdown } from '/examples/shared/markdown.js';

const $ = (id) => document.getElementById(id);
const DEFAULT_GATEWAY = new URL('/v3/ai/language-model', location.href).href;
const KEY = (id) => `fx-agent-example.${id}`;

// The agent persists `model` and `mode` here once it accepted them, and restores them.
const configStore = {
  get: (id) => localStorage.getItem(KEY(id)),
  set: (id, value) => localStorage.setItem(KEY(id), value),
};

// A toy workspace: a few shell builtins over an in-memory folder, enough to watch tool calls.
const files = new Map([
  ['README.md', '# Demo project\n\nA pretend folder for the fx agent example.\n'],
  ['notes.txt', 'TODO: buy milk\nTODO: ship the release\n'],
]);
const workspace = {
  info: { version: 1, root: '/demo', cwd: '/demo', home: '/home/demo', gitAvailable: false, ephemeral: true },
  permission: 'prompt',
  exec: ({ command }) => runToy(command),
};

function runToy(command) {
  const [name = '', ...args] = command.trim().split(/\s+/);
  const out = (stdout) => ({ stdout, stderr: '', exitCode: 0 });
  switch (name) {
    case 'pwd':
      return out('/demo\n');
    case 'ls':
      return out(`${[...files.keys()].sort().join('\n')}\n`);
    case 'echo':
      return out(`${args.join(' ')}\n`);
    case 'date':
      return out(`${new Date().toUTCString()}\n`);
    case 'cat':
      if (files.has(args[0])) return out(files.get(args[0]));
      return { stdout: '', stderr: `cat: ${args[0] ?? ''}: no such file\n`, exitCode: 1 };
    case 'grep': {
      // `grep [-n] [-r] PATTERN [.]`: a plain substring search over every file.
      const pattern = args.find((a) => !a.startsWith('-') && a !== '.') ?? '';
      const hits = [...files].flatMap(([file, text]) =>
        text.split('\n').flatMap((line, i) => (pattern && line.includes(pattern) ? [`${file}:${i + 1}:${line}`] : [])),
      );
      return hits.length > 0 ? out(`${hits.join('\n')}\n`) : { stdout: '', stderr: '', exitCode: 1 };
    }
    default:
      return { stdout: '', stderr: `${name}: not available in this demo workspace (try ls, cat, grep, echo, pwd, date)\n`, exitCode: 127 };
  }
}

let agent = null;
let session = null;
let turn = null;

function status(text, isError = false) {
  $('status').textContent = text;
  $('status').classList.toggle('error', isError);
}

function entry(className, text = '') {
  const li = document.createElement('li');
  li.className = className;
  li.textContent = text;
  $('transcript').append(li);
  li.scrollIntoView({ block: 'end' });
  return li;
}

/**
 * A tool result as a person reads it: `{ state, text }` — the command's output (and exit code),
 * or why it did not run. fx's results are `exit_code=…` text or an `{"error": …}` object.
 */
function describeResult(status, text) {
  let error = null;
  if (text.trimStart().startsWith('{')) {
    try {
      error = JSON.parse(text).error ?? null;
    } catch {
      error = null;
    }
  }
  if (error?.type === 'tool_permission_denied') return { state: 'denied', text: error.message ?? 'The command was not run.' };
  if (error) {
    const details = error.details ?? {};
    const output = [details.stdout, details.stderr].filter(Boolean).join('\n').trim();
    const code = Number.isInteger(details.exit_code) ? `exit ${details.exit_code}` : null;
    return { state: code ?? status, text: output || error.message || '' };
  }
  if (/^command cancelled/.test(text)) return { state: 'cancelled', text: 'The command was stopped.' };
  const output = text
    .split('\n')
    .filter((line) => !/^(exit_code=|truncated=|stdout_bytes=|stderr_bytes=)/.test(line) && !/^<\/?(stdout|stderr)>$/.test(line))
    .join('\n')
    .trim();
  const code = text.match(/^exit_code=(-?\d+)/m);
  return { state: code && code[1] !== '0' ? `exit ${code[1]}` : status, text: output === '(no output)' ? '' : output };
}

function setBusy(busy) {
  $('prompt').disabled = !session || busy;
  $('send').disabled = !session || busy;
  $('cancel').disabled = !busy;
  $('model').disabled = !session || busy;
  $('mode').disabled = !session || busy;
}

function fillSelect(select, option) {
  select.replaceChildren(
    ...option.options.map((o) => {
      // Modes show as fx shows them: `ask` / `auto` (their permissionMode), ids `ask` / `code`.
      const el = new Option(o.permissionMode ?? o.name, o.value, false, o.value === option.currentValue);
      if (o.description) el.title = o.description;
      return el;
    }),
  );
}

function showConfig() {
  for (const option of session.configOptions) fillSelect($(option.id), option);
}

function onEvent(event) {
  if (event.type === 'request.retry') status(`The gateway did not answer; retrying (attempt ${event.attempt} of ${event.limit})…`);
  if (event.type === 'catalog.error') status(`No model list from the gateway (${event.error}); the current model still works.`);
  if (event.type === 'session.forked') entry('notice', 'Another tab changed this session; continuing in a copy.');
}

function onPermission(request) {
  const ok = window.confirm(`The agent wants to run:\n\n  ${request.toolCall.title}\n\nAllow it?`);
  return ok ? 'allow_once' : 'reject_once';
}

async function connect() {
  $('connect').disabled = true;
  try {
    await agent?.close();
    session = null;
    setBusy(false);
    const url = $('gateway').value.trim();
    localStorage.setItem(KEY('gateway'), url);
    status('Starting…');
    agent = await createFxAgent({
      env: { FX_GATEWAY_CHAT_URL: url },
      configStore,
      workspace,
      onPermission,
      onEvent,
    });
    session = await agent.createSession();
    showConfig();
    // The model menu needs the catalog: fetched now, in the background (a turn does not wait).
    const shown = session;
    shown.loadConfigOptions().then(
      () => session === shown && showConfig(),
      () => {},
    );
    $('transcript').replaceChildren();
    status(`Connected. Session ${session.id}.`);
    setBusy(false);
    $('prompt').focus();
  } catch (error) {
    status(error.message, true);
  } finally {
    $('connect').disabled = false;
  }
}

async function send(text) {
  entry('user', text);
  setBusy(true);
  turn = session.prompt(text);
  const tools = new Map();
  let answer = null;
  let answerText = '';
  try {
    for await (const update of turn) {
      switch (update.sessionUpdate) {
        case 'agent_message_chunk': {
          // The reply as formatted Markdown, rendered again as it grows.
          if (!answer) {
            answer = entry('assistant');
            answerText = '';
          }
          answerText += update.content.text;
          answer.replaceChildren(renderMarkdown(answerText));
          break;
        }
        case 'tool_call': {
          answer = null; // text after a tool call starts a new bubble
          const li = entry('tool');
          li.innerHTML = '<details><summary><code></code><span class="state"></span></summary><pre></pre></details>';
          li.querySelector('code').textContent = `$ ${update.title}`;
          li.querySelector('.state').textContent = 'waiting';
          tools.set(update.toolCallId, li);
          break;
        }
        case 'tool_call_update': {
          const li = tools.get(update.toolCallId);
          if (!li) break;
          const text = update.content?.map((c) => c.content.text).join('') ?? '';
          const shown = text ? describeResult(update.status.replace('_', ' '), text) : { state: update.status.replace('_', ' '), text: '' };
          li.className = `tool ${update.status}${shown.state === 'denied' ? ' denied' : ''}`;
          li.querySelector('.state').textContent = shown.state;
          if (shown.text) li.querySelector('pre').textContent = shown.text;
          break;
        }
      }
      $('transcript').lastElementChild?.scrollIntoView({ block: 'end' });
    }
    const stopReason = await turn.stopReason;
    if (stopReason !== 'end_turn') entry('notice', `Stopped: ${stopReason.replaceAll('_', ' ')}.`);
  } catch (error) {
    entry('notice error', `${error.code ?? 'Error'}: ${error.message}`);
  } finally {
    turn = null;
    setBusy(false);
    $('prompt').focus();
  }
}

async function changeConfig(configId, select) {
  try {
    await session.setConfigOption(configId, select.value);
  } catch (error) {
    status(error.message, true);
  }
  showConfig();
}

$('gateway').value = new URLSearchParams(location.search).get('gateway') ?? localStorage.getItem(KEY('gateway')) ?? DEFAULT_GATEWAY;
$('connect').addEventListener('click', connect);
$('cancel').addEventListener('click', () => turn?.cancel());
$('model').addEventListener('change', (e) => changeConfig('model', e.target));
$('mode').addEventListener('change', (e) => changeConfig('mode', e.target));
$('composer').addEventListener('submit', (e) => {
  e.preventDefault();
  const text = $('prompt').value.trim();
  if (!text || turn) return;
  $('prompt').value = '';
  send(text);
});
$('prompt').addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey) {
    e.preventDefault();
    $('composer').requestSubmit();
  }
});
