// The try page's workspace adapter: fx's `terminal` tool runs its commands in just-bash, an
// in-memory bash, over a small starter project at /workspace. Files persist across commands for
// the life of the page; nothing touches the visitor's disk or network.
//
// In a browser `just-bash` resolves through the page's import map (see examples/dev-gateway/
// for the map and the two small shims its browser bundle needs); in Node, from node_modules.
// It is imported when the first workspace is created, without waiting for it: its 1.2 MB bundle
// loads while fx starts, and the first command waits for it if it has not arrived yet.

/** just-bash's `Bash` once imported; `importing` its import, started by the first workspace. */
let Bash = null;
let importing = null;

function importBash() {
  importing ??= import('just-bash').then((module) => {
    Bash = module.Bash;
    return Bash;
  });
  return importing;
}

const ROOT = '/workspace';
const HOME = '/home/visitor';
const PERMISSIONS = ['allow-sandboxed', 'prompt'];
const DEFAULT_OUTPUT_LIMIT = 64 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
// A runaway command (`yes`) stops here instead of filling the tab's memory.
const MAX_OUTPUT_PER_EXEC = 8 * 1024 * 1024;

/** The starter project, as paths relative to /workspace. */
export const STARTER_FILES = Object.freeze({
  'README.md': `# tasks

A tiny task-list library, here so fx has something to work on. It lives in memory in this tab:
edit anything, nothing leaves the page.

- \`src/tasks.js\`: add, complete and list tasks
- \`src/format.js\`: render a task list as text
- \`test/tasks.test.js\`: a few checks

Try asking fx to "find the to-dos in the code and fix one", or to "add a due date to tasks".
`,
  'package.json': `${JSON.stringify(
    {
      name: 'tasks',
      version: '0.1.0',
      private: true,
      type: 'module',
      scripts: { test: 'node test/tasks.test.js' },
    },
    null,
    2,
  )}\n`,
  'src/tasks.js': `// A list of tasks kept in memory.

export function createTasks() {
  const tasks = [];
  let nextId = 1;
  return {
    add(title) {
      // TODO: reject empty titles
      const task = { id: nextId++, title, done: false };
      tasks.push(task);
      return task;
    },
    complete(id) {
      const task = tasks.find((t) => t.id === id);
      if (task) task.done = true;
      return task;
    },
    list() {
      return [...tasks];
    },
  };
}
`,
  'src/format.js': `// Renders tasks as a checklist.

export function formatTasks(tasks) {
  // TODO: show the number of open tasks at the end
  return tasks.map((t) => \`[\${t.done ? 'x' : ' '}] \${t.id}. \${t.title}\`).join('\\n');
}
`,
  'test/tasks.test.js': `import assert from 'node:assert/strict';
import { createTasks } from '../src/tasks.js';
import { formatTasks } from '../src/format.js';

const tasks = createTasks();
tasks.add('write the README');
tasks.complete(tasks.add('try fx').id);
assert.equal(formatTasks(tasks.list()), '[ ] 1. write the README\\n[x] 2. try fx');
console.log('ok');
`,
});

function abortError(signal) {
  const reason = signal?.reason;
  if (reason && (reason.name === 'AbortError' || reason.name === 'TimeoutError')) return reason;
  return new DOMException('the command was cancelled', 'AbortError');
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The longest prefix of `text` that fits in `budget` UTF-8 bytes, never splitting a character. */
function cutUtf8(bytes, budget) {
  let end = Math.max(0, Math.min(budget, bytes.length));
  // Step back off continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (end > 0 && end < bytes.length && (bytes[end] & 0xc0) === 0x80) end -= 1;
  return decoder.decode(bytes.subarray(0, end));
}

/**
 * Caps stdout + stderr at `limit` UTF-8 bytes: when over, each stream gets half (stdout the
 * rounded-up half) and a stream using less gives the rest to the other; a cut stream ends with a
 * note of how much was dropped, counted inside its budget.
 */
export function capOutput(stdout, stderr, limit) {
  const out = encoder.encode(stdout);
  const err = encoder.encode(stderr);
  if (out.length + err.length <= limit) return { stdout, stderr, truncated: false };
  let outBudget = Math.ceil(limit / 2);
  let errBudget = limit - outBudget;
  if (out.length < outBudget) {
    errBudget += outBudget - out.length;
    outBudget = out.length;
  } else if (err.length < errBudget) {
    outBudget += errBudget - err.length;
    errBudget = err.length;
  }
  const cut = (bytes, budget) => {
    if (bytes.length <= budget) return decoder.decode(bytes);
    const note = (kept) => `\n[output cut: ${bytes.length - kept} of ${bytes.length} bytes not shown]\n`;
    const room = Math.max(0, budget - encoder.encode(note(0)).length - 2);
    const head = cutUtf8(bytes, room);
    const withNote = head + note(encoder.encode(head).length);
    return encoder.encode(withNote).length <= budget ? withNote : cutUtf8(bytes, budget);
  };
  return { stdout: cut(out, outBudget), stderr: cut(err, errBudget), truncated: true };
}

/**
 * A workspace adapter (version 1) over just-bash with `files` (default: the starter project)
 * under /workspace. `permission` is `allow-sandboxed` (commands run without asking) or `prompt`
 * (fx asks before each command); it can be changed later, and fx reads it when a runtime starts.
 * `exec` rejects with an AbortError when its signal aborts and with a TimeoutError after
 * `timeoutMs`, and returns at most `outputLimitBytes` of output. `reset()` restores the files.
 */
export function createJustBashWorkspace({ permission = 'allow-sandboxed', files = STARTER_FILES } = {}) {
  if (!PERMISSIONS.includes(permission)) {
    throw new TypeError(`createJustBashWorkspace: permission must be "allow-sandboxed" or "prompt"`);
  }
  if (files === null || typeof files !== 'object') {
    throw new TypeError('createJustBashWorkspace: files must map relative paths to file contents');
  }
  const initial = {};
  for (const [path, content] of Object.entries(files)) {
    const clean = String(path).replace(/^\/+/, '');
    if (clean === '' || clean.split('/').some((part) => part === '..' || part === '.')) {
      throw new TypeError(`createJustBashWorkspace: ${JSON.stringify(path)} is not a path inside the workspace`);
    }
    initial[`${ROOT}/${clean}`] = content;
  }
  initial[`${HOME}/.keep`] = '';

  const fresh = () =>
    new Bash({
      files: initial,
      cwd: ROOT,
      env: { HOME, USER: 'visitor', LOGNAME: 'visitor', PWD: ROOT },
      executionLimits: { maxOutputSize: MAX_OUTPUT_PER_EXEC, maxExecutionTimeMs: DEFAULT_TIMEOUT_MS + 5_000 },
    });
  // Created on the first command when just-bash had not arrived with the workspace.
  let bash = Bash === null ? null : fresh();
  // Started now; a failed import is the first command's error, not an unhandled rejection.
  importBash().catch(() => {});
  let currentPermission = permission;

  async function exec({ command, cwd = ROOT, signal, timeoutMs = DEFAULT_TIMEOUT_MS, outputLimitBytes = DEFAULT_OUTPUT_LIMIT } = {}) {
    if (typeof command !== 'string') throw new TypeError('workspace.exec: command must be a string');
    if (signal?.aborted) throw abortError(signal);
    if (bash === null) {
      await importBash();
      bash ??= fresh();
      if (signal?.aborted) throw abortError(signal);
    }
    const controller = new AbortController();
    let settle;
    const stopped = new Promise((_, reject) => {
      settle = reject;
    });
    const onAbort = () => {
      controller.abort(signal.reason);
      settle(abortError(signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer =
      Number.isFinite(timeoutMs) && timeoutMs > 0
        ? setTimeout(() => {
            const timeout = new DOMException(`the command ran past ${timeoutMs} ms`, 'TimeoutError');
            controller.abort(timeout);
            settle(timeout);
          }, timeoutMs)
        : undefined;
    try {
      const run = bash.exec(command, { cwd: typeof cwd === 'string' ? cwd : ROOT, signal: controller.signal });
      // A late result after an abort is dropped; keep its rejection from going unhandled.
      run.catch(() => {});
      const result = await Promise.race([run, stopped]);
      const limit = Number.isFinite(outputLimitBytes) && outputLimitBytes >= 0 ? outputLimitBytes : DEFAULT_OUTPUT_LIMIT;
      const { stdout, stderr } = capOutput(result.stdout ?? '', result.stderr ?? '', limit);
      const exitCode = Number.isInteger(result.exitCode) ? result.exitCode : 1;
      return { stdout, stderr, exitCode };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    info: Object.freeze({ version: 1, root: ROOT, cwd: ROOT, home: HOME, gitAvailable: false, ephemeral: true }),
    get permission() {
      return currentPermission;
    },
    set permission(value) {
      if (!PERMISSIONS.includes(value)) {
        throw new TypeError('workspace.permission must be "allow-sandboxed" or "prompt"');
      }
      currentPermission = value;
    },
    exec,
    /** Puts the files back as they were at creation (a command still running keeps the old ones). */
    reset() {
      bash = Bash === null ? null : fresh();
    },
    /**
     * The current just-bash instance, for the page (e.g. to read files for a download); null
     * while just-bash has not arrived (the first command waits for it).
     */
    get bash() {
      return bash;
    },
  };
}
