// What every consumer app runs, in a browser or in Node: an agent turn (fx-core.wasm) and a
// terminal turn (fx-term.wasm), both against a fake fetch, so nothing leaves the machine.

import { createFxAgent, createFxTerminal, memorySessionStore, readSession, xtermAdapter } from 'fx-wasm';

const encoder = new TextEncoder();

function sse(events) {
  return `${events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('')}data: [DONE]\n\n`;
}

/** A fetch that answers the catalog with no models and every chat with `text`, in small deltas. */
function fakeFetch(text) {
  return async (url, init) => {
    if ((init?.method ?? 'GET') === 'GET') return new Response('{"data":[]}', { status: 200 });
    const deltas = text.match(/[\s\S]{1,5}/gu).map((delta) => ({ type: 'text-delta', id: 't', delta }));
    const finish = { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: {} };
    return new Response(encoder.encode(sse([...deltas, finish])), {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
    });
  };
}

const env = { AI_GATEWAY_API_KEY: 'consumer-app-key' };

async function agentTurn() {
  const sessionStore = memorySessionStore();
  const agent = await createFxAgent({ env, fetch: fakeFetch('Hello from the agent.'), sessionStore });
  const session = await agent.createSession();
  const turn = session.prompt('say hello');
  let text = '';
  for await (const update of turn) text += update.content?.text ?? '';
  const stopReason = await turn.stopReason;
  const stored = await readSession((await sessionStore.load(session.id)).bytes);
  await agent.close();
  return { text, stopReason, stored: stored.turns[0]?.assistant };
}

function bufferText(term) {
  const buffer = term.buffer.active;
  const lines = [];
  for (let y = 0; y < buffer.length; y += 1) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
  return lines.join('\n');
}

async function until(term, needle) {
  for (let i = 0; i < 500; i += 1) {
    if (bufferText(term).includes(needle)) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

async function terminalTurn(term) {
  const runtime = await createFxTerminal({
    terminal: xtermAdapter(term),
    env,
    fetch: fakeFetch('Hello from the **terminal**.'),
  });
  await runtime.interactive;
  const welcome = await until(term, 'Run /help for commands');
  term.input('say hi');
  term.input('\r');
  const answered = await until(term, 'Hello from the terminal.');
  runtime.write('/exit\r');
  const exit = await runtime.exited;
  return { welcome, answered, exit, screen: bufferText(term) };
}

/** Runs both turns with `term` (an xterm.js Terminal); resolves to what the test checks. */
export async function runChecks(term) {
  const agent = await agentTurn();
  const terminal = await terminalTurn(term);
  return { agent, terminal };
}
