// Session files for the example pages (the try page and the session viewer): the files of an
// opened zip or folder as a native session directory, and a readable name for a download.

/**
 * The files of a session zip or folder, keyed by their path in the session directory: a folder
 * prefix every path shares (`<id>/events.jsonl` → `events.jsonl`) is dropped, and so is OS
 * litter (`__MACOSX/`, dot files).
 */
export function sessionFiles(files) {
  const entries = Object.entries(files).filter(
    ([path]) => !path.startsWith('__MACOSX/') && !path.split('/').pop().startsWith('.'),
  );
  const first = entries[0]?.[0].split('/')[0];
  const shared = entries.length > 0 && entries.every(([path]) => path.startsWith(`${first}/`));
  return Object.fromEntries(entries.map(([path, data]) => [shared ? path.slice(first.length + 1) : path, data]));
}

/**
 * A readable file name for a session's zip (a `readSession` view): `fx-<title>-<YYYY-MM-DD>.zip`,
 * the title in lower-case words joined by `-` and cut at a word to 48 characters, the date the
 * session's last change in local time; `fx-session-…` for a session without a title.
 */
export function downloadName(view) {
  const words = String(view?.title ?? '')
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);
  let slug = '';
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > 48) break;
    slug = next;
  }
  if (!slug) slug = (words[0] ?? 'session').slice(0, 48);
  const when = new Date(view?.updatedAtMs ?? view?.createdAtMs ?? Number.NaN);
  const pad = (n) => String(n).padStart(2, '0');
  const day = Number.isNaN(when.getTime()) ? '' : `-${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())}`;
  return `fx-${slug}${day}.zip`;
}
