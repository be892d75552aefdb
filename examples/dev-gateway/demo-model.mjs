// The scripted demo model of the dev gateway: answers the AI Gateway language-model protocol
// without any AI. A turn runs a few commands through the `terminal` tool, one per step, then
// summarises what they printed; every reply says plainly that it is scripted.

export const DEMO_MODEL_ID = 'fx-demo/scripted';

/** The catalog the dev gateway serves when it has no key: the demo model only. */
export function demoCatalog() {
  return {
    object: 'list',
    data: [
      {
        id: DEMO_MODEL_ID,
        name: 'Scripted demo (offline, no AI)',
        type: 'language',
        owned_by: 'fx-demo',
        released: 1767225600,
        tags: ['tool-use'],
        context_window: 128000,
        max_tokens: 8192,
      },
    ],
  };
}

const DEFAULT_PLAN = [
  { command: 'ls -la', intro: 'Let me look around the project first.' },
  { command: 'cat README.md', intro: 'Now the README.' },
  { command: 'grep -n TODO -r .', intro: 'And the TODOs left in the code.' },
];

const OPENING =
  "This is fx's **scripted demo model**: no AI is involved, and it follows the same short script " +
  'for every prompt, so you can see how a turn works offline.';

/**
 * How a scripted reply ends: where a real model is, in the words of the client that asked (the
 * try page has sign-in and key buttons; the agent example and scripts do not).
 */
const CLOSINGS = {
  try: '*This reply was scripted. Sign in with Vercel or paste an AI Gateway key (in the header) to talk to a real model.*',
  agent:
    '*This reply was scripted. For a real model, start the dev gateway with `AI_GATEWAY_API_KEY` set (it forwards requests to the AI Gateway), then Connect again.*',
  script:
    '*This reply was scripted. Set `AI_GATEWAY_API_KEY` (or point `FX_GATEWAY_CHAT_URL` at a gateway that has a key) to talk to a real model.*',
  forced: '*This reply was scripted: this server runs with `--demo`, so every reply is, whatever the credential.*',
};

/** Which client asked, from the page that sent the request (none: a script, e.g. Node). */
export function demoClient(referer) {
  if (typeof referer !== 'string' || referer === '') return 'script';
  let path;
  try {
    path = new URL(referer).pathname;
  } catch {
    return 'script';
  }
  if (path.startsWith('/examples/agent/')) return 'agent';
  return path === '/' || path === '/index.html' ? 'try' : 'script';
}

function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part) => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

/** The tool output as text, whatever shape the client sent it in. */
function outputText(part) {
  const output = part.output ?? part.result;
  if (typeof output === 'string') return output;
  if (output && typeof output.value === 'string') return output.value;
  if (output && output.value !== undefined) return JSON.stringify(output.value);
  return output === undefined ? '' : JSON.stringify(output);
}

function parseInput(input) {
  if (typeof input === 'string') {
    try {
      return JSON.parse(input);
    } catch {
      return {};
    }
  }
  return input && typeof input === 'object' ? input : {};
}

/**
 * What happened in the current turn: the user's text, the terminal calls made since it (with
 * their results), and whether the client offers the `terminal` tool.
 */
export function readTurn(body) {
  const prompt = Array.isArray(body?.prompt) ? body.prompt : [];
  let lastUser = -1;
  prompt.forEach((message, index) => {
    if (message?.role === 'user') lastUser = index;
  });
  const userText = lastUser >= 0 ? textOf(prompt[lastUser].content) : '';
  const calls = [];
  const byId = new Map();
  for (const message of prompt.slice(lastUser + 1)) {
    if (!Array.isArray(message?.content)) continue;
    for (const part of message.content) {
      if (message.role === 'assistant' && part?.type === 'tool-call') {
        const call = { id: part.toolCallId, command: String(parseInput(part.input).command ?? ''), output: null };
        calls.push(call);
        byId.set(call.id, call);
      } else if (message.role === 'tool' && part?.type === 'tool-result') {
        const call = byId.get(part.toolCallId);
        if (call) call.output = outputText(part);
      }
    }
  }
  const tools = Array.isArray(body?.tools) ? body.tools : [];
  return { userText, calls, hasTerminal: tools.some((tool) => tool?.name === 'terminal') };
}

/** The commands for this turn: `run <command>` (or `$ <command>`) runs that; else the tour. */
function planFor(userText) {
  const asked = userText.match(/^\s*(?:run|\$)\s+([\s\S]+?)\s*$/i);
  if (asked) return [{ command: asked[1], intro: `Running \`${asked[1].split('\n')[0]}\` as asked.` }];
  return DEFAULT_PLAN;
}

/** fx's error-shaped tool results are JSON `{"error":{type, details?, denied?}}`. */
function errorOf(output) {
  if (!output?.startsWith('{')) return null;
  try {
    return JSON.parse(output).error ?? null;
  } catch {
    return null;
  }
}

/** Whether the user declined the command or the turn's command was cancelled. */
function looksRefused(output) {
  const error = errorOf(output);
  if (error) return error.type === 'tool_permission_denied' || error.denied === true;
  return /^command cancelled/.test(output ?? '');
}

/** The stdout of a terminal tool result (`<stdout>…</stdout>`, or the details of a failure). */
function stdoutOf(output) {
  const error = errorOf(output);
  if (error) return [error.details?.stdout, error.details?.stderr, error.details ? '' : error.message].filter(Boolean).join('\n');
  const match = output.match(/<stdout>\n?([\s\S]*?)\n?<\/stdout>/);
  return match ? match[1] : output;
}

function exitCodeOf(output) {
  const error = errorOf(output);
  if (Number.isInteger(error?.details?.exit_code)) return error.details.exit_code;
  const match = output.match(/exit_code=(-?\d+)/);
  return match ? Number(match[1]) : null;
}

function describeListing(stdout) {
  const names = stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('total '))
    .map((line) => line.split(/\s+/).pop())
    .filter((name) => name && name !== '.' && name !== '..' && name !== './' && name !== '../');
  if (names.length === 0) return '**Files**: the listing came back empty.';
  return `**Files**: ${names.map((n) => `\`${n}\``).join(', ')}`;
}

function describeReadme(stdout) {
  const lines = stdout.split('\n');
  const title = lines.find((line) => line.startsWith('#'))?.replace(/^#+\s*/, '');
  const first = lines.find((line) => line.trim() && !line.startsWith('#'));
  if (!title && !first) return '**README**: empty.';
  return `**README**: *${title ?? 'untitled'}*${first ? `, which starts: "${first.trim()}"` : ''}`;
}

function describeTodos(stdout) {
  const hits = stdout
    .split('\n')
    .map((line) => line.match(/^(?:\.\/)?(.+?):(\d+):(.*)$/))
    .filter((m) => m && /TODO/.test(m[3]))
    .map((m) => `- \`${m[1]}:${m[2]}\`: ${m[3].replace(/^.*?TODO:?\s*/, '').trim() || 'TODO'}`);
  if (hits.length === 0) return '**TODOs**: none found.';
  return `**TODOs** (${hits.length}):\n${hits.join('\n')}`;
}

/** The first lines shown of a command's output in the summary. */
const SUMMARY_LINES = 20;

function describeGeneric(call, stdout) {
  const all = stdout.replace(/\n$/, '').split('\n');
  const lines = all.slice(0, SUMMARY_LINES).join('\n').replace(/```/g, "'''");
  const code = exitCodeOf(call.output);
  const status = code === null ? '' : ` (exit code ${code})`;
  const more = all.length > SUMMARY_LINES ? `\n\n(The first ${SUMMARY_LINES} of its ${all.length} lines.)` : '';
  return `**\`${call.command}\`**${status}:\n\n\`\`\`\n${lines || '(no output)'}\n\`\`\`${more}`;
}

function describe(call) {
  const stdout = stdoutOf(call.output ?? '');
  if (/^ls\b/.test(call.command)) return describeListing(stdout);
  if (/^cat README\.md$/.test(call.command)) return describeReadme(stdout);
  if (/^grep\b.*TODO/.test(call.command)) return describeTodos(stdout);
  return describeGeneric(call, stdout);
}

/**
 * The next step of the script for a request body: `{ text, toolCall?, finishReason }` where
 * `toolCall` is `{ id, command }`. `client` (see `demoClient`) picks how the reply ends.
 */
export function nextDemoStep(body, client = 'script') {
  const CLOSING = CLOSINGS[client] ?? CLOSINGS.script;
  const { userText, calls, hasTerminal } = readTurn(body);
  if (!hasTerminal) {
    const echo = userText.trim() ? `\n\nYou wrote:\n\n> ${userText.trim().split('\n').join('\n> ')}` : '';
    return {
      text: `${OPENING}\n\nNo workspace was given to fx, so there are no commands to run.${echo}\n\n${CLOSING}`,
      finishReason: 'stop',
    };
  }
  const plan = planFor(userText);
  const refused = calls.some((call) => looksRefused(call.output));
  if (calls.length < plan.length && !refused) {
    const step = plan[calls.length];
    const text = calls.length === 0 ? `${OPENING}\n\n${step.intro}` : step.intro;
    return {
      text,
      toolCall: { id: `demo_${calls.length + 1}_${Math.random().toString(36).slice(2, 10)}`, command: step.command },
      finishReason: 'tool-calls',
    };
  }
  if (refused) {
    return {
      text: `The command was not run (${calls.length === 1 ? 'it was' : 'one was'} declined or cancelled), so the demo stops here.\n\n${CLOSING}`,
      finishReason: 'stop',
    };
  }
  const findings = calls.map(describe).join('\n\n');
  return { text: `Here is what the commands showed:\n\n${findings}\n\n${CLOSING}`, finishReason: 'stop' };
}

/** Splits text into small deltas (a couple of words each, whitespace kept). */
export function deltas(text) {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const out = [];
  for (let i = 0; i < words.length; i += 2) out.push(words.slice(i, i + 2).join(''));
  return out;
}

/**
 * The SSE events of one demo step, in order, as objects (the caller frames them as
 * `data: <json>` lines and ends with `data: [DONE]`).
 */
export function demoEvents(body, modelId = DEMO_MODEL_ID, client = 'script') {
  const step = nextDemoStep(body, client);
  const events = [
    { type: 'response-metadata', id: `demo_${Date.now().toString(36)}`, timestamp: new Date().toISOString(), modelId },
    { type: 'text-start', id: 'text_0' },
    ...deltas(step.text).map((delta) => ({ type: 'text-delta', id: 'text_0', delta })),
    { type: 'text-end', id: 'text_0' },
  ];
  if (step.toolCall) {
    const input = JSON.stringify({ action: 'exec', command: step.toolCall.command });
    const half = Math.ceil(input.length / 2);
    const id = step.toolCall.id;
    events.push(
      { type: 'tool-input-start', id, toolName: 'terminal' },
      { type: 'tool-input-delta', id, delta: input.slice(0, half) },
      { type: 'tool-input-delta', id, delta: input.slice(half) },
      { type: 'tool-input-end', id },
      { type: 'tool-call', toolCallId: id, toolName: 'terminal', input },
    );
  }
  const promptChars = JSON.stringify(body?.prompt ?? []).length;
  events.push({
    type: 'finish',
    finishReason: { unified: step.finishReason, raw: step.finishReason === 'tool-calls' ? 'tool_calls' : 'stop' },
    usage: {
      inputTokens: { total: Math.ceil(promptChars / 4) },
      outputTokens: { total: Math.ceil(step.text.length / 4) },
    },
  });
  return events;
}
