// Reading the recorded fx sessions under tests/fixtures/fx-sessions/ from disk.

import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'fx-sessions');

/** The scenario names (folders), sorted. */
export async function fixtureNames() {
  const entries = await readdir(FIXTURES_DIR, { withFileTypes: true });
  return entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
}

async function walk(dir) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path)));
    else out.push(path);
  }
  return out;
}

/**
 * One scenario's session directory: `dir` (its path relative to the fixtures folder), `events`
 * (the events.jsonl bytes) and `files` (every file, keyed by path relative to the session dir).
 */
export async function loadFixture(name) {
  const sessions = join(FIXTURES_DIR, name, 'session');
  const [id] = await readdir(sessions);
  const sessionDir = join(sessions, id);
  const files = {};
  for (const path of (await walk(sessionDir)).sort()) {
    files[relative(sessionDir, path).split('\\').join('/')] = new Uint8Array(await readFile(path));
  }
  return { dir: relative(FIXTURES_DIR, sessionDir), events: files['events.jsonl'], files };
}
