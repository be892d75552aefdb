// xterm.js glue: `encodeXtermKeyEvent` (keys xterm.js cannot encode with their modifiers) and
// `xtermAdapter`, which wraps a `Terminal` (browser or @xterm/headless) into the terminal
// adapter `createFxTerminal` expects.

const ARROWS = { ArrowUp: 'A', ArrowDown: 'B', ArrowRight: 'C', ArrowLeft: 'D' };

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
  if (typeof term.attachCustomKeyEventHandler === 'function') {
    term.attachCustomKeyEventHandler((event) => {
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
  };
}
