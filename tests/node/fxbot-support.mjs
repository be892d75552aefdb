// Node-only helpers of the public-API bots suites (tests/node/fxbot*.test.mjs).

import assert from 'node:assert/strict';

import { within } from './agent-support.mjs';

/** The lines of `botId`'s chat up to turn `turn`'s `turn_end` (at most 10 s): `{ end, lines }`. */
export async function untilEnd(fxbot, botId, turn) {
  const lines = [];
  const reading = (async () => {
    for await (const line of fxbot.chat.stream(botId, 0)) {
      lines.push(line);
      if (line.type === 'turn_end' && line.turn === turn) return line;
    }
    return null;
  })();
  const outcome = await within(reading, 10_000);
  assert.ok(outcome.settled && outcome.value, `turn ${turn} ends (lines: ${JSON.stringify(lines.map((l) => l.type))})`);
  return { end: outcome.value, lines };
}

/** Asserts that `promise` rejects with an FxbotError of `status` whose message matches `pattern`. */
export async function rejectsWith(promise, status, pattern) {
  await assert.rejects(promise, (error) => {
    assert.equal(error.name, 'FxbotError', error.message);
    assert.equal(error.status, status, error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}
