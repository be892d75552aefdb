// xterm.js glue: `encodeXtermKeyEvent` (keys xterm.js cannot encode with their modifiers) and
// `xtermAdapter`, which wraps a `Terminal` (browser or @xterm/headless) into the terminal
// adapter `createFxTerminal` expects. In a browser the terminal keeps Tab for itself, so a
// keyboard user would be shut in: Esc then Tab (or Shift+Tab) leaves it to the browser, which
// moves the focus on, as CodeMirror does.

const ARROWS = { ArrowUp: 'A', ArrowDown: 'B', ArrowRight: 'C', ArrowLeft: 'D' };
const MODIFIERS = new Set(['Shift', 'Control', 'Alt', 'Meta', 'AltGraph', 'CapsLock']);

/**
 * The input sequence for a keydown xterm.js would send without its modifier, or `null` to
 * leave the event to xterm.
 */
export function encodeXtermKeyEvent(event) {
  if (!event || event.type !== 'keydown' || event.altKey || event.ctrlKey) return null;
  if (event.key === 'Enter' && event.shiftKey && !event.metaKey) return '\x1b[13;2u';
  if (!event.metaKey) return null;
  const param = 8 + (event.shiftKey ? 1 : 0) + 1;
  if (event.key === 'Backspace') return `\x1b[127;${param}u`;
  const arrow = ARROWS[event.key];
  if (arrow) return `\x1b[1;${param}${arrow}`;
  return null;
}

function disposer(disposable) {
  return () => disposable?.dispose?.();
}

/** Wraps an xterm.js `Terminal` as a terminal adapter. */
export function xtermAdapter(term) {
  if (!term || typeof term.write !== 'function') throw new TypeError('xtermAdapter(term) needs an xterm.js Terminal');
  // One streaming decoder: a UTF-8 character split across two writes is kept whole.
  const decoder = new TextDecoder('utf-8');
  let keySubscriber = null;
  // The key whose keydown was sent encoded: its keypress and keyup must not reach xterm.js
  // either, or it sends the key's plain form too (Shift+Enter's keypress is a bare `\r`).
  let consumed = null;
  // The last key pressed was a bare Esc (modifier keys alone do not count): a Tab now leaves.
  let escaped = false;
  const leaves = typeof term.attachCustomKeyEventHandler === 'function';
  if (leaves) {
    term.attachCustomKeyEventHandler((event) => {
      if (event?.type === 'keydown' && !MODIFIERS.has(event.key)) {
        const bare = !event.ctrlKey && !event.altKey && !event.metaKey;
        // WebKitGTK names Shift+Tab `Unidentified` (GTK's ISO_Left_Tab); its code is still Tab.
        if (escaped && bare && (event.key === 'Tab' || event.code === 'Tab')) {
          escaped = false;
          // Neither xterm.js nor fx sees it; the browser's own Tab moves the focus.
          return false;
        }
        escaped = bare && !event.shiftKey && event.key === 'Escape';
      }
      if (event?.type !== 'keydown') {
        if (consumed === null || event?.key !== consumed) return true;
        if (event.type === 'keyup') consumed = null;
        event.preventDefault?.();
        return false;
      }
      const encoded = encodeXtermKeyEvent(event);
      if (encoded === null || keySubscriber === null) {
        consumed = null;
        return true;
      }
      consumed = event.key;
      // No keypress follows a cancelled keydown in a browser; the check above covers the rest.
      event.preventDefault?.();
      keySubscriber(encoded);
      return false;
    });
  }
  return {
    write(bytes) {
      if (typeof bytes === 'string') {
        term.write(bytes);
        return;
      }
      const text = decoder.decode(bytes, { stream: true });
      if (text !== '') term.write(text);
    },
    onData(callback) {
      return disposer(term.onData(callback));
    },
    onKeyData(callback) {
      keySubscriber = callback;
      return () => {
        if (keySubscriber === callback) keySubscriber = null;
      };
    },
    onResize(callback) {
      return disposer(term.onResize(callback));
    },
    get cols() {
      return term.cols;
    },
    get rows() {
      return term.rows;
    },
    /** Esc then Tab moves the focus out (a browser xterm.js): fx's /help lists the keys. */
    escThenTabLeaves: leaves,
  };
}
