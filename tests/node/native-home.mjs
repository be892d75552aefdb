// Node-only test support (agent-support.mjs is also loaded by pages, so it imports nothing of
// Node's): an fx home for the fx CLI oracle (FX_NATIVE).

import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * A temporary fx home holding the native session directory `files` (from `exportNativeSession`)
 * as session `id`, with the modes the fx CLI insists on (0700 folders, 0600 files): run the CLI
 * with `HOME` set to the returned path, and remove it afterwards.
 */
export function nativeHome(id, files, prefix = 'fx-home-') {
  const home = mkdtempSync(join(tmpdir(), prefix));
  const dir = join(home, '.fx', 'sessions', id);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(join(home, '.fx'), 0o700);
  chmodSync(join(home, '.fx', 'sessions'), 0o700);
  for (const [path, bytes] of Object.entries(files)) {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, bytes, { mode: 0o600 });
  }
  return home;
}
