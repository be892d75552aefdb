#!/usr/bin/env node
// Runs one prompt through createFxAgent and prints the answer as it streams.
//
//   npm run build
//   AI_GATEWAY_API_KEY=... node examples/node/prompt.mjs "Explain SSE in one paragraph"
//   FX_GATEWAY_CHAT_URL=http://127.0.0.1:8788/v3/ai/language-model node examples/node/prompt.mjs "hi"
//
// Ctrl+C cancels the turn (a second Ctrl+C quits). FX_MODEL picks the model.

import { createFxAgent } from '../../pkg/index.js';

const prompt = process.argv.slice(2).join(' ').trim();
if (!prompt) {
  console.error('usage: node examples/node/prompt.mjs "your prompt"');
  process.exit(2);
}

const agent = await createFxAgent({
  // `undefined` values count as absent, so these can be passed straight through.
  env: {
    AI_GATEWAY_API_KEY: process.env.AI_GATEWAY_API_KEY,
    FX_GATEWAY_CHAT_URL: process.env.FX_GATEWAY_CHAT_URL,
    FX_MODEL: process.env.FX_MODEL,
  },
  onEvent(event) {
    if (event.type === 'request.retry') console.error(`[retrying: ${event.reason}]`);
  },
});

const session = await agent.createSession();
const controller = new AbortController();
process.once('SIGINT', () => controller.abort());

const turn = session.prompt(prompt, { signal: controller.signal });
let code = 0;
try {
  for await (const update of turn) {
    if (update.sessionUpdate === 'agent_message_chunk') process.stdout.write(update.content.text);
  }
  const stopReason = await turn.stopReason;
  process.stdout.write('\n');
  if (stopReason !== 'end_turn') console.error(`[stopped: ${stopReason}]`);
} catch (error) {
  console.error(`\n${error.code ?? 'error'}: ${error.message}`);
  code = 1;
}
await agent.close();
process.exitCode = code;
