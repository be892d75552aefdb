// The session viewer: loads a sample fx session (the recorded sessions of tests/fixtures/), a
// session zip (as the try page downloads it) or a native session folder the user picks, through
// readSession, and shows it; exports it back as a native session directory.

import { exportNativeSession, importNativeSession, readSession } from '../../pkg/index.js';
import { renderMarkdown } from '../shared/markdown.js';
import { downloadName, sessionFiles } from '../shared/session-files.js';
import { unzip, zip } from '../shared/zip.js';

const FIXTURES = '../../tests/fixtures/fx-sessions/';

/**
 * What each sample shows, in the picker's order (a recorded folder not named here is listed
 * after these, by its folder name).
 */
const SAMPLES = {
  simple: 'A one-line answer',
  multiturn: 'Four turns: a command and a file read',
  files: 'Writing a file, then editing it',
  twotools: 'Two commands in one step',
  failing: 'A command that fails',
  bigout: 'A command with a long, cut output',
  markdown: 'Markdown, emoji and control characters',
  image: 'A prompt with an image',
  interrupted: 'A turn cancelled midway',
  long: 'Twelve turns, the older ones summarised',
  interactive: 'The interactive CLI: a denied command, /fast, /compact',
};
const ORDER = Object.keys(SAMPLES);
const $ = (id) => document.getElementById(id);

/** The session bytes on screen, and their id (for download names). */
let current = null;

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'class') node.className = value;
    else node[key] = value;
  }
  node.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

function setStatus(text, isError = false) {
  $('status').textContent = text;
  $('status').classList.toggle('error', isError);
  $('status').hidden = !text;
}

async function listJson(url) {
  const res = await fetch(url, { headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.json();
}

async function loadFixtureList() {
  const select = $('fixture');
  try {
    const rank = (name) => (ORDER.includes(name) ? ORDER.indexOf(name) : ORDER.length);
    const entries = (await listJson(FIXTURES))
      .filter((e) => e.directory)
      .sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));
    select.replaceChildren(el('option', { value: '', textContent: 'choose…' }));
    for (const { name } of entries) select.append(el('option', { value: name, textContent: SAMPLES[name] ?? name }));
    const wanted = new URLSearchParams(location.search).get('session');
    if (wanted && entries.some((e) => e.name === wanted)) {
      select.value = wanted;
      await openFixture(wanted);
    }
  } catch (err) {
    select.replaceChildren(el('option', { value: '', textContent: 'no sample sessions' }));
    setStatus(`Could not list the sample sessions: ${err.message}`, true);
  }
}

async function openFixture(name) {
  if (!name) return;
  setStatus(`Loading “${SAMPLES[name] ?? name}”…`);
  const sessionDir = `${FIXTURES}${name}/session/`;
  const [session] = (await listJson(sessionDir)).filter((e) => e.directory);
  const res = await fetch(`${sessionDir}${session.name}/events.jsonl`);
  if (!res.ok) throw new Error(`events.jsonl: HTTP ${res.status}`);
  await show(new Uint8Array(await res.arrayBuffer()));
  history.replaceState(null, '', `?session=${encodeURIComponent(name)}`);
}

async function openFolder(fileList) {
  const files = {};
  for (const file of fileList) {
    // webkitRelativePath is "<picked folder>/<path inside it>".
    const path = file.webkitRelativePath.split('/').slice(1).join('/');
    if (path) files[path] = new Uint8Array(await file.arrayBuffer());
  }
  setStatus(`Importing ${Object.keys(files).length} files…`);
  await show(await importNativeSession(files));
  $('fixture').value = '';
}

/** A session zip (the try page's Download, or the export here): `<id>/…` or the files at its root. */
async function openZip(file) {
  setStatus(`Opening ${file.name}…`);
  let files;
  try {
    files = sessionFiles(await unzip(file));
  } catch (err) {
    throw new Error(`${file.name} could not be read as a zip: ${err.message}`);
  }
  if (!files['events.jsonl']) throw new Error(`${file.name} holds no fx session: there is no events.jsonl in it.`);
  await show(await importNativeSession(files));
  $('fixture').value = '';
}

async function show(bytes) {
  const view = await readSession(bytes);
  current = { bytes, id: view.id, view };
  render(view);
  setStatus('');
  $('download-dir').disabled = false;
  $('download-log').disabled = false;
}

function formatTime(ms) {
  return typeof ms === 'number' ? new Date(ms).toLocaleString() : '—';
}

function render(view) {
  $('title').textContent = view.title || '(untitled session)';
  const prefs = view.preferences ?? {};
  const usage = view.usage ?? {};
  const cost = usage.totalCost ? `, $${usage.totalCost.toFixed(4)}` : '';
  const facts = [
    ['Session', view.id],
    ['Workspace', view.workspaceRoot === view.originWorkspaceRoot || !view.originWorkspaceRoot
      ? view.workspaceRoot : `${view.workspaceRoot} (started in ${view.originWorkspaceRoot})`],
    ['Created', formatTime(view.createdAtMs)],
    ['Updated', formatTime(view.updatedAtMs)],
    ['Model', `${prefs.model ?? '—'} (effort ${prefs.effort ?? '—'}, fast mode ${prefs.fastMode ? 'on' : 'off'}, via ${prefs.provider ?? '—'})`],
    ['Tokens', `${view.totalInputTokens ?? 0} in, ${view.totalOutputTokens ?? 0} out${cost}`],
    ['Turns', String(view.turns?.length ?? 0)],
  ];
  $('facts').replaceChildren(...facts.flatMap(([k, v]) => [el('dt', { textContent: k }), el('dd', { textContent: v ?? '—' })]));
  const cards = (view.turns ?? []).map(renderTurn);
  if (view.recovery) cards.push(renderRecovery(view.recovery));
  $('turns').replaceChildren(...cards);
  $('session').hidden = false;
}

function renderTurn(turn, index) {
  const head = el('header', {}, el('span', { textContent: `Turn ${index + 1}` }));
  if (turn.kind === 'interrupted') {
    head.append(el('span', { class: `badge ${turn.reason}`, textContent: `interrupted: ${turn.reason}` }));
  } else if (turn.kind !== 'assistant') {
    head.append(el('span', { class: 'badge', textContent: turn.kind.replace('_', ' ') }));
  }
  const body = el('div', { class: 'body' });
  if (turn.kind === 'compacted_summary') {
    body.append(block('Summary of earlier turns', turn.summary, 'assistant'));
    return el('li', { class: 'turn' }, head, body);
  }
  const user = block('You', turn.user?.text ?? '', 'user');
  const images = turn.user?.images ?? [];
  if (images.length) {
    user.append(
      el('div', { class: 'images' }, ...images.map((img) =>
        el('span', { class: 'image', title: img.snapshotPath ?? 'no stored copy', textContent: `🖼 #${img.id} ${img.path} (${img.mediaType})` }))),
    );
  }
  body.append(user);
  for (const step of turn.steps ?? []) {
    if (step.assistant) body.append(block('fx', step.assistant, 'assistant'));
    const results = new Map((step.toolResults ?? []).map((r) => [r.toolCallId, r]));
    for (const call of step.toolCalls ?? []) body.append(renderTool(call, results.get(call.id)));
  }
  if (turn.kind === 'interrupted' && turn.toolCall) {
    body.append(renderTool(turn.toolCall, null, 'stopped while running'));
  }
  const partial = turn.kind === 'interrupted' ? 'fx (partial)' : 'fx';
  if (turn.assistant) body.append(block(partial, turn.assistant, 'assistant'));
  if (turn.files?.length) {
    body.append(el('p', { class: 'muted', textContent: `Files: ${turn.files.map((f) => `${f.action} ${f.path}${f.status === 'failure' ? ' (failed)' : ''}`).join(', ')}` }));
  }
  else if (turn.kind === 'interrupted') body.append(el('p', { class: 'muted', textContent: 'No answer: the turn stopped first.' }));
  return el('li', { class: 'turn' }, head, body);
}

/** A turn that stopped on a provider error and can be continued. */
function renderRecovery(recovery) {
  const head = el('header', {},
    el('span', { textContent: 'Pending turn' }),
    el('span', { class: 'badge interrupted', textContent: `${recovery.cause.replaceAll('_', ' ')}: ${recovery.action.replaceAll('_', ' ')}` }));
  const body = el('div', { class: 'body' }, block('You', recovery.user?.text ?? '', 'user'));
  for (const step of recovery.steps ?? []) {
    if (step.assistant) body.append(block('fx', step.assistant, 'assistant'));
    const results = new Map((step.toolResults ?? []).map((r) => [r.toolCallId, r]));
    for (const call of step.toolCalls ?? []) body.append(renderTool(call, results.get(call.id)));
  }
  if (recovery.assistant) body.append(block('fx (so far)', recovery.assistant, 'assistant'));
  return el('li', { class: 'turn' }, head, body);
}

/** A message: fx's text rendered as Markdown (safely: DOM nodes, no HTML), the user's as written. */
function block(who, text, kind) {
  const body = kind === 'assistant' ? el('div', { class: 'markdown' }, renderMarkdown(text)) : el('pre', { textContent: text });
  return el('div', { class: kind }, el('div', { class: 'who', textContent: who }), body);
}

/** `terminal` calls show their command; other tools their JSON arguments. */
function describeArgs(call) {
  try {
    const args = JSON.parse(call.argumentsJson);
    if (typeof args.command === 'string') return `$ ${args.command}`;
    return JSON.stringify(args);
  } catch {
    return call.argumentsJson;
  }
}

function renderTool(call, result, note) {
  const line = el('div', { class: 'call' },
    el('span', { class: 'name', textContent: call.name }),
    el('code', { class: 'args', textContent: describeArgs(call) }));
  const box = el('div', { class: 'tool' }, line);
  if (note) line.append(el('span', { class: 'badge interrupted', textContent: note }));
  if (!result) return box;
  line.append(el('span', { class: `badge ${result.status}`, textContent: result.status }));
  if (typeof result.exitCode === 'number') line.append(el('span', { class: 'muted', textContent: `exit ${result.exitCode}` }));
  const output = prettyOutput(result.output ?? '');
  const lines = output.split('\n');
  const preview = lines.length > 12 ? `${lines.slice(0, 12).join('\n')}\n…` : output;
  const size = `${result.outputBytes ?? output.length} bytes${result.truncated ? ', truncated' : ''}`;
  box.append(el('details', { open: lines.length <= 12 },
    el('summary', { textContent: `output (${size})` }),
    el('pre', { textContent: preview })));
  return box;
}

/** Error results are JSON documents; indent them so they read as such. */
function prettyOutput(output) {
  if (!output.startsWith('{')) return output;
  try {
    return JSON.stringify(JSON.parse(output), null, 2);
  } catch {
    return output;
  }
}

function download(blob, name) {
  const url = URL.createObjectURL(blob);
  el('a', { href: url, download: name }).click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function guard(task) {
  return (...args) => task(...args).catch((err) => {
    const code = err.code ? ` [${err.code}]` : '';
    setStatus(`${err.message}${code}`, true);
  });
}

$('fixture').addEventListener('change', guard((e) => openFixture(e.target.value)));
$('folder').addEventListener('change', guard(async (e) => {
  const files = [...e.target.files];
  e.target.value = '';
  if (files.length > 0) await openFolder(files);
}));
$('zip').addEventListener('change', guard(async (e) => {
  const [file] = e.target.files;
  e.target.value = '';
  if (file) await openZip(file);
}));
$('open-zip').addEventListener('click', () => $('zip').click());
$('open-folder').addEventListener('click', () => $('folder').click());
$('download-log').addEventListener('click', () => {
  download(new Blob([current.bytes], { type: 'application/jsonl' }), 'events.jsonl');
});
$('download-dir').addEventListener('click', guard(async () => {
  const files = await exportNativeSession(current.bytes);
  const inFolder = Object.fromEntries(Object.entries(files).map(([p, d]) => [`${current.id}/${p}`, d]));
  download(zip(inFolder), downloadName(current.view));
}));

guard(loadFixtureList)();
