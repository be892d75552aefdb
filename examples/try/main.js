// The try page: fx in an xterm.js terminal filling the window. The workspace is an in-memory
// bash with a starter project (workspace.js), sessions live in IndexedDB (a reload resumes the
// last one), settings and prompt history in localStorage. Model requests go to the dev gateway
// that serves this page (examples/dev-gateway/): with a Vercel sign-in or a pasted key it
// forwards them to the AI Gateway, otherwise a scripted demo model answers.

import {
  createFxTerminal,
  exportNativeSession,
  importNativeSession,
  indexedDbOAuthSessionStore,
  indexedDbSessionStore,
  localStorageConfigStore,
  localStoragePromptHistoryStore,
  readSession,
  xtermAdapter,
} from '/pkg/index.js';
import { downloadName, sessionFiles } from '/examples/shared/session-files.js';
import { unzip, zip } from '/examples/shared/zip.js';
import { openTerminal } from './terminal.js';
import { createJustBashWorkspace } from './workspace.js';

const KEY_ITEM = 'fx.try.gatewayKey'; // sessionStorage: the pasted key lives as long as the tab
const NOTICE_ITEM = 'fx.try.demoNoticeHidden'; // sessionStorage
const SCREEN_READER_ITEM = 'fx.try.screenReader'; // localStorage: '1' when the mode is on
// One permission setting: fx's mode, `ask` or `code` (shown as "auto"), kept by the config store
// under `mode` like any fx setting. The workspace always lets fx decide (permission "prompt").
const MODES = ['ask', 'code'];
const DEFAULT_MODE = 'code';
const OLD_PERMISSION_ITEM = 'fx.try.permission'; // the page's former Run / Ask first switch
// The model a real session falls back to when none was chosen with /model; the same as
// DEFAULT_MODEL_ID in src/gateway/catalog.rs (tests/browser/try.test.mjs checks).
const REAL_DEFAULT_MODEL = 'moonshotai/kimi-k3';

const $ = (id) => document.getElementById(id);

// ---- stores ----

const sessionStore = indexedDbSessionStore({ name: 'fx.try.sessions' });
const promptHistoryStore = localStoragePromptHistoryStore({ prefix: 'fx.try.history.' });
const savedConfig = localStorageConfigStore({ prefix: 'fx.try.config.' });
// A visitor who chose "Ask first" on the former switch keeps asking.
if (savedConfig.get('mode') === null && localStorage.getItem(OLD_PERMISSION_ITEM) === 'prompt') savedConfig.set('mode', 'ask');
localStorage.removeItem(OLD_PERMISSION_ITEM);

/** The saved permission mode (`ask` or `code`). */
function savedMode() {
  const mode = savedConfig.get('mode');
  return MODES.includes(mode) ? mode : DEFAULT_MODE;
}

/** Whether a Vercel sign-in record is stored; kept current by the store wrapper below. */
let signedIn = false;
const oauthRecords = indexedDbOAuthSessionStore({ name: 'fx.try.oauth' });
const oauthSessionStore = {
  async load() {
    const record = await oauthRecords.load();
    noteSignIn(record !== null);
    return record;
  },
  async commit(bytes, expectedRevision) {
    const result = await oauthRecords.commit(bytes, expectedRevision);
    noteSignIn(true);
    return result;
  },
  async remove(expectedRevision) {
    const result = await oauthRecords.remove(expectedRevision);
    noteSignIn(false);
    return result;
  },
};

/**
 * The config store fx sees: `mode` as saved (auto by default); `model` pinned to the demo model
 * while the demo answers, else the visitor's own choice (a session begun in the demo moves to a
 * real model).
 */
function configStoreFor(demo, demoModel) {
  return {
    get(id) {
      if (id === 'mode') return savedMode();
      if (id !== 'model') return savedConfig.get(id);
      if (demo) return demoModel;
      const chosen = savedConfig.get('model');
      return chosen && chosen !== demoModel ? chosen : REAL_DEFAULT_MODEL;
    },
    set(id, value) {
      if (id === 'model' && (demo || value === demoModel)) return;
      savedConfig.set(id, value);
    },
  };
}

// ---- page state ----

const state = {
  /** `/dev-gateway/status`: `{ mode, demoModel, serverKey, chatPath, oauthIssuerUrl }`. */
  status: null,
  key: sessionStorage.getItem(KEY_ITEM),
  /** The permission mode fx runs with (`ask` or `code`); follows the terminal both ways. */
  mode: savedMode(),
};

/** Which way in is active: `signed-in`, `key` or `none`. */
function wayIn() {
  if (state.key) return 'key';
  if (signedIn) return 'signed-in';
  return 'none';
}

/** Whether the scripted demo answers this page's requests. */
function usingDemo() {
  if (!state.status || state.status.mode === 'demo') return true;
  return wayIn() === 'none' && state.status.mode !== 'proxy';
}

function sourceLabel() {
  if (state.status?.mode === 'demo') return 'Scripted demo · offline';
  if (state.key) return 'AI Gateway · your key';
  if (signedIn) return 'AI Gateway · Vercel account';
  if (state.status?.mode === 'proxy') return 'AI Gateway · server key';
  return 'Scripted demo · no AI';
}

function renderHeader() {
  const source = $('source');
  source.dataset.kind = usingDemo() ? 'demo' : 'live';
  $('source-label').textContent = sourceLabel();
  source.title =
    state.status?.mode === 'demo'
      ? 'The local server runs with --demo: every reply is scripted, whatever the credential'
      : usingDemo()
        ? 'No credential yet: a scripted demo model answers, served by the local dev gateway'
        : 'Requests go through the local dev gateway to the Vercel AI Gateway';
  $('way-in').dataset.state = wayIn();
  $('more-menu').dataset.state = wayIn();
  for (const input of document.querySelectorAll('input[name="permission"]')) {
    input.checked = input.value === state.mode;
  }
  const notice = $('demo-notice');
  notice.hidden = !usingDemo() || sessionStorage.getItem(NOTICE_ITEM) === '1';
  $('demo-notice-text').textContent =
    state.status?.mode === 'demo'
      ? 'The server runs with --demo: replies follow a short script, even with a key or a sign-in.'
      : 'No AI here: replies follow a short script. Sign in or paste an AI Gateway key for a real model.';
  requestAnimationFrame(fitNow);
}

/**
 * Where model requests go now, for a toast after a change of credential: the AI Gateway, unless
 * the server runs with --demo (then every reply stays scripted, whatever the credential).
 */
function routeNote(withWhat) {
  if (state.status?.mode === 'demo') {
    return 'This server runs with --demo, so replies stay scripted: restart ./scripts/try.sh without --demo to reach the AI Gateway.';
  }
  return `fx now talks to the AI Gateway${withWhat}.`;
}

let toastTimer;
function toast(message, tone = 'info') {
  const el = $('toast');
  el.textContent = message;
  el.dataset.tone = tone;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el.hidden = true;
  }, tone === 'error' ? 8000 : 4500);
}

function guard(task) {
  return (...args) =>
    Promise.resolve()
      .then(() => task(...args))
      .catch((error) => toast(error?.message ?? String(error), 'error'));
}

// ---- the terminal ----

const { term, fitAddon, fitNow, renderer } = openTerminal($('terminal'), {
  screenReaderMode: localStorage.getItem(SCREEN_READER_ITEM) === '1',
});
// What the terminal's input says to a screen reader, beyond its name: how to type and leave.
term.textarea?.setAttribute('aria-describedby', 'terminal-help');

/**
 * Whether the screen is a conversation not begun: fx's welcome row is on it, the cursor sits
 * after a bare `┃ ` on the normal screen (no menu, no draft), and no prompt card is shown (a
 * fresh start, or /clear; the scrollback may hold earlier turns).
 */
function composerIsEmpty() {
  const buffer = term.buffer.active;
  if (buffer.type !== 'normal' || buffer.cursorX !== 2) return false;
  const row = buffer.baseY + buffer.cursorY;
  if (buffer.getLine(row)?.translateToString(true).trimEnd() !== '┃') return false;
  let welcome = false;
  for (let y = buffer.baseY; y < buffer.baseY + term.rows; y += 1) {
    const text = buffer.getLine(y)?.translateToString(true) ?? '';
    if (text.startsWith('𝒇x')) welcome = true;
    if (y !== row && /^┃ \S/.test(text)) return false;
  }
  return welcome;
}

/** Shows "Type your prompt here" beside the empty composer, until the first prompt. */
function placeHint() {
  const hint = $('composer-hint');
  const screenEl = term.element?.querySelector('.xterm-screen');
  const show = runtime !== null && screenEl && composerIsEmpty();
  hint.hidden = !show;
  if (!show) return;
  const box = screenEl.getBoundingClientRect();
  const main = hint.parentElement.getBoundingClientRect();
  const cellWidth = box.width / term.cols;
  const cellHeight = box.height / term.rows;
  const left = box.left - main.left + (term.buffer.active.cursorX + 2) * cellWidth;
  hint.style.left = `${left}px`;
  hint.style.top = `${box.top - main.top + term.buffer.active.cursorY * cellHeight}px`;
  hint.style.height = `${cellHeight}px`;
  hint.style.lineHeight = `${cellHeight}px`;
  hint.style.maxWidth = `${Math.max(0, main.width - left - 12)}px`;
}
let hintFrame = 0;
function scheduleHint() {
  cancelAnimationFrame(hintFrame);
  hintFrame = requestAnimationFrame(placeHint);
}
term.onWriteParsed(scheduleHint);
term.onCursorMove(scheduleHint);
term.onResize(scheduleHint);
window.addEventListener('resize', scheduleHint);

/** xterm.js's screen-reader mode (an accessible copy of the text, new output announced). */
function setScreenReader(on) {
  term.options.screenReaderMode = on;
  localStorage.setItem(SCREEN_READER_ITEM, on ? '1' : '0');
  $('screen-reader').setAttribute('aria-pressed', String(on));
  $('screen-reader-item').textContent = on ? 'Turn screen reader mode off' : 'Turn screen reader mode on';
}

// "prompt": fx's permission mode decides whether a command needs approval.
const workspace = createJustBashWorkspace({ permission: 'prompt' });
const events = [];
let runtime = null;
let generation = 0;
/** The session the last terminal showed, for a restart that finds none running. */
let lastSession = null;

/** Opens the sign-in page in a new tab; false when a popup blocker stopped it. */
function openUrl(url) {
  // With "noopener" window.open returns null even on success, so cut the link by hand instead.
  const opened = window.open(url, '_blank');
  if (!opened) return false;
  opened.opener = null;
  return true;
}

/**
 * The page's fetch for fx: the browser's, watching for the AI Gateway refusing a pasted key
 * (HTTP 401 to a model request), which only "Forget key" and another key can fix.
 */
async function fetchForFx(input, init) {
  const response = await fetch(input, init);
  const chat = state.status?.chatPath ?? '/v3/ai/language-model';
  if (response.status === 401 && state.key && new URL(String(input), location.href).pathname === chat) {
    $('forget-key').dataset.attention = 'true';
    toast('The AI Gateway refused your key (HTTP 401). Press “Forget key” and paste a valid one, or sign in with Vercel instead.', 'error');
  }
  return response;
}

function envFor(demo) {
  const env = {
    FX_GATEWAY_CHAT_URL: `${location.origin}${state.status?.chatPath ?? '/v3/ai/language-model'}`,
  };
  if (demo) env.FX_MODEL = state.status?.demoModel ?? 'fx-demo/scripted';
  if (state.key) env.AI_GATEWAY_API_KEY = state.key;
  if (state.status?.oauthIssuerUrl) env.FX_E2E_OAUTH_ISSUER_URL = state.status.oauthIssuerUrl;
  return env;
}

function onEvent(event) {
  events.push(event);
  if (events.length > 500) events.splice(0, events.length - 500);
  // /permissions, Shift+Tab or the header switched the mode: the header shows what fx runs with.
  if ((event.type === 'config.changed' || event.type === 'config.restore') && event.configId === 'mode' && MODES.includes(event.value)) {
    state.mode = event.value;
    renderHeader();
  }
  if (event.type === 'session.forked') {
    toast('Another tab moved this session on, so your latest turn was saved as a new session. Nothing was lost.');
  }
}

function onExited(rt, code) {
  if (runtime !== rt) return;
  term.write(`\r\n\x1b[2mfx ${code === 0 ? 'exited' : `stopped (code ${code})`}. Press any key to pick this session up again.\x1b[0m\r\n`);
  const exitedAt = generation;
  const once = term.onData(() => {
    once.dispose();
    // Unless something else started fx meanwhile (a switch in the header).
    if (generation === exitedAt) guard(start)(rt.sessionId ?? 'last');
  });
}

/**
 * (Re)starts fx in the terminal. `resume` is a session id, `last`, or null for a new session.
 * A running terminal is stopped first; its session is already saved, so nothing is lost.
 */
async function start(resume) {
  const mine = ++generation;
  const previous = runtime;
  runtime = null;
  lastSession = previous?.sessionId ?? lastSession;
  if (previous) {
    previous.abort();
    await previous.exited;
  }
  if (mine !== generation) return;
  term.reset();
  const demo = usingDemo();
  renderHeader();
  const rt = await createFxTerminal({
    terminal: xtermAdapter(term),
    args: resume ? ['--resume', resume] : [],
    env: envFor(demo),
    fetch: fetchForFx,
    workspace,
    sessionStore,
    configStore: configStoreFor(demo, state.status?.demoModel ?? 'fx-demo/scripted'),
    promptHistoryStore,
    oauthSessionStore,
    openUrl,
    download: downloadFiles,
    onEvent,
  });
  if (mine !== generation) {
    rt.abort();
    return;
  }
  runtime = rt;
  scheduleHint();
  if (resume && resume !== 'last') lastSession = resume;
  rt.exited.then((code) => onExited(rt, code));
  await rt.interactive;
  term.focus();
}

/** Restarts on the session on screen (or the newest stored one). */
function restart() {
  return start(runtime?.sessionId ?? lastSession ?? 'last');
}

// ---- sign-in state ----

let signInKnown = false;
let signInRestart = 0;
function noteSignIn(present) {
  const changed = signInKnown && present !== signedIn;
  signedIn = present;
  signInKnown = true;
  renderHeader();
  if (!changed) return;
  // A sign-in or sign-out changes where requests go: restart once the terminal has shown the
  // outcome, on the same session.
  toast(present ? `Signed in with Vercel. ${routeNote(' with your account')}` : 'Signed out of Vercel.');
  clearTimeout(signInRestart);
  signInRestart = setTimeout(() => guard(restart)(), 1500);
}

// ---- download and import ----

function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const NOTHING_YET = 'Nothing to download yet: this session has no turn. Send a prompt first.';

/** Whether a session holds anything to keep: a turn, or one that stopped and can go on. */
const hasContent = (view) => view.turns.length > 0 || Boolean(view.recovery);

/**
 * The native session files (Download, or `/export` in the terminal), offered as one zip named
 * after the session's title and date; its folder keeps the session id, as ~/.fx/sessions/ wants.
 * A session without a turn is not offered (the terminal's /export shows why).
 */
async function downloadFiles(files) {
  const log = files['events.jsonl'];
  const view = log ? await readSession(log) : null;
  if (!view) throw new Error('This export has no events.jsonl; nothing was saved.');
  if (!hasContent(view)) throw new Error(NOTHING_YET);
  const id = view.id;
  const name = downloadName(view);
  saveBlob(zip(Object.fromEntries(Object.entries(files).map(([path, data]) => [`${id}/${path}`, data]))), name);
  toast(
    `Downloaded ${name}, a native fx session. To go on in the fx CLI, unzip it in ~/.fx/sessions/ (it makes ~/.fx/sessions/${id}/; fx wants that folder private: chmod -R go= it), then run fx --resume ${id}.`,
  );
}

async function downloadSession() {
  const id = runtime?.sessionId;
  const record = id ? await sessionStore.load(id) : null;
  if (!record || !hasContent(await readSession(record.bytes))) return toast(NOTHING_YET);
  return downloadFiles(await exportNativeSession(record.bytes));
}

function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

async function importFiles(files) {
  const clean = sessionFiles(files);
  if (!clean['events.jsonl']) throw new Error('That is not an fx session: there is no events.jsonl in it.');
  const bytes = await importNativeSession(clean);
  const view = await readSession(bytes);
  const existing = await sessionStore.load(view.id);
  if (existing && !sameBytes(existing.bytes, bytes)) {
    throw new Error(`Session ${view.id} is already here with different content; it was left as it is.`);
  }
  if (!existing) await sessionStore.commit(view.id, bytes, undefined);
  await start(view.id);
  toast(`Opened “${view.title}” (${view.turns.length} turn${view.turns.length === 1 ? '' : 's'}).`);
}

async function importZip(file) {
  await importFiles(await unzip(file));
}

async function importFolder(fileList) {
  const files = {};
  for (const file of fileList) {
    files[file.webkitRelativePath || file.name] = new Uint8Array(await file.arrayBuffer());
  }
  await importFiles(files);
}

// ---- controls ----

// The header switch and the terminal's /permissions are one setting: the switch asks fx to
// change mode (no restart; during a turn it applies when the turn ends) and fx's config.changed
// event moves the switch, whichever side started it.
for (const input of document.querySelectorAll('input[name="permission"]')) {
  input.addEventListener(
    'change',
    guard(async () => {
      if (!input.checked || input.value === state.mode) return;
      if (!runtime) {
        renderHeader();
        throw new Error('fx is still starting; try again in a moment.');
      }
      term.focus();
      try {
        await runtime.setMode(input.value);
      } catch (error) {
        renderHeader();
        throw error;
      }
    }),
  );
}

$('download').addEventListener('click', guard(downloadSession));
// The More menu's entries do what the header's own buttons do.
const FORWARD = { 'import-zip': 'import-zip-input', 'import-folder': 'import-folder-input' };
for (const item of document.querySelectorAll('#more-menu [data-forward]')) {
  item.addEventListener('click', () => {
    $('more-menu').hidePopover();
    $(FORWARD[item.dataset.forward] ?? item.dataset.forward).click();
  });
}
$('import-zip').addEventListener('click', () => {
  $('import-menu').hidePopover();
  $('import-zip-input').click();
});
$('import-folder').addEventListener('click', () => {
  $('import-menu').hidePopover();
  $('import-folder-input').click();
});
$('import-zip-input').addEventListener(
  'change',
  guard(async (e) => {
    const [file] = e.target.files;
    e.target.value = '';
    if (file) await importZip(file);
  }),
);
$('import-folder-input').addEventListener(
  'change',
  guard(async (e) => {
    const files = [...e.target.files];
    e.target.value = '';
    if (files.length > 0) await importFolder(files);
  }),
);
// The popover menus open under their button, right-aligned to it, inside the window.
for (const [button, menu] of [
  ['import', 'import-menu'],
  ['more', 'more-menu'],
]) {
  $(menu).addEventListener('toggle', (e) => {
    if (e.newState !== 'open') return;
    const anchor = $(button).getBoundingClientRect();
    const el = $(menu);
    el.style.top = `${anchor.bottom + 6}px`;
    el.style.left = `${Math.max(8, Math.min(anchor.right - el.offsetWidth, innerWidth - el.offsetWidth - 8))}px`;
  });
}

$('sign-in').addEventListener('click', () => {
  if (!runtime) return toast('fx is still starting; try again in a moment.');
  runtime.write('/login\r');
  term.focus();
  return undefined;
});
$('sign-out').addEventListener('click', () => {
  if (!runtime) return;
  runtime.write('/logout\r');
  term.focus();
});

$('paste-key').addEventListener('click', () => {
  $('key-input').value = '';
  $('key-dialog').showModal();
});
$('key-cancel').addEventListener('click', () => $('key-dialog').close('cancel'));
$('key-dialog').addEventListener(
  'close',
  guard(async () => {
    const value = $('key-input').value.trim();
    $('key-input').value = '';
    if ($('key-dialog').returnValue !== 'use' || value === '') return term.focus();
    state.key = value;
    delete $('forget-key').dataset.attention;
    sessionStorage.setItem(KEY_ITEM, value);
    await restart();
    toast(`Key saved for this tab. ${routeNote(' with it')}`);
    return undefined;
  }),
);
$('forget-key').addEventListener(
  'click',
  guard(async () => {
    state.key = null;
    sessionStorage.removeItem(KEY_ITEM);
    delete $('forget-key').dataset.attention;
    await restart();
    toast('Key forgotten.');
  }),
);
for (const button of document.querySelectorAll('.suggestion')) {
  button.addEventListener('click', () => {
    if (!runtime) return;
    runtime.write(`${button.dataset.prompt}\r`);
    term.focus();
  });
}
for (const id of ['screen-reader', 'screen-reader-item']) {
  $(id).addEventListener('click', () => {
    if ($('more-menu').matches(':popover-open')) $('more-menu').hidePopover();
    setScreenReader(!term.options.screenReaderMode);
  });
}
setScreenReader(term.options.screenReaderMode);
$('demo-notice-close').addEventListener('click', () => {
  sessionStorage.setItem(NOTICE_ITEM, '1');
  renderHeader();
});

// ---- start ----

async function boot() {
  // The gateway's status and the two stores are independent: asked for at once.
  const status = (async () => {
    const response = await fetch('/dev-gateway/status', { cache: 'no-store' });
    if (!response.ok) throw new Error(`The dev gateway did not answer /dev-gateway/status (HTTP ${response.status}).`);
    return response.json();
  })();
  const signIn = oauthSessionStore.load().catch(() => null);
  const listed = sessionStore.list();
  listed.catch(() => {});
  state.status = await status;
  await signIn;
  renderHeader();
  const saved = await listed;
  await start(saved.length > 0 ? 'last' : null);
}

/** For tests and the curious: the live objects and the screen as text. */
window.__fxTry = {
  term,
  get renderer() {
    return renderer();
  },
  fitAddon,
  workspace,
  sessionStore,
  events,
  get runtime() {
    return runtime;
  },
  /** How many times fx was started in this page (1 after the first start). */
  get starts() {
    return generation;
  },
  get state() {
    return { ...state, signedIn, wayIn: wayIn(), demo: usingDemo() };
  },
  downloadName,
  screenText() {
    const buffer = term.buffer.active;
    const lines = [];
    for (let y = 0; y < buffer.length; y += 1) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    return lines.join('\n');
  },
  ready: null,
};
window.__fxTry.ready = boot().catch((error) => {
  toast(error?.message ?? String(error), 'error');
  // fx never started, so its sanitizer is not there: drop every control character (ESC, C1,
  // bidi controls) so an error text cannot become a sequence.
  const text = String(error?.message ?? error).replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/gu, ' ');
  term.write(`\x1b[31m${text}\x1b[0m\r\n`);
  throw error;
});
window.__fxTry.ready.catch(() => {});
