// The try page's terminal: xterm.js filling its element, fitted to it as the window changes,
// drawn with WebGL when the browser has it (see the settings below).

import { FitAddon } from '@xterm/addon-fit';
import { WebglAddon } from '@xterm/addon-webgl';
import { Terminal } from '@xterm/xterm';

// How the terminal draws its text (tests/browser/try-glyphs.test.mjs measures both at device
// pixel ratio 1 and 2). With WebGL, xterm.js draws box-drawing and block characters itself
// (customGlyphs), so they join at any row height, and rows a little taller than the font keep
// every underscore visible. The DOM renderer (no WebGL) draws them from the font instead: rows
// exactly as tall as the font keep them joined, and Liberation Mono at 13 px is a Debian font
// whose underscore stays inside such a row and whose strokes meet at DPR 1 and 2 alike
// (DejaVu Sans Mono's underscore is cut off at DPR 1; at 13.5 px the strokes part at DPR 2).
const FONTS = '"Geist Mono", "JetBrains Mono", ui-monospace, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace';
const DOM_FONTS = '"Geist Mono", "JetBrains Mono", ui-monospace, "SF Mono", Menlo, Consolas, "Liberation Mono", "DejaVu Sans Mono", monospace';
const WEBGL_LINE_HEIGHT = 1.15;
const FONT_SIZE = 13.5;
const DOM_FONT_SIZE = 13;

/**
 * Opens the terminal in `element`. Returns `{ term, fitAddon, fitNow, renderer }`; `renderer()`
 * says which renderer draws now (`webgl`, or `dom` without WebGL or after a lost context).
 * `screenReaderMode` starts xterm.js's screen-reader mode (the page's header switches it).
 */
export function openTerminal(element, { screenReaderMode = false } = {}) {
  const term = new Terminal({
    screenReaderMode,
    fontFamily: DOM_FONTS,
    fontSize: DOM_FONT_SIZE,
    lineHeight: 1.0,
    customGlyphs: true,
    cursorBlink: true,
    scrollback: 5000,
    allowProposedApi: false,
    macOptionIsMeta: true,
    theme: {
      background: '#0a0a0a',
      foreground: '#e6e6e6',
      cursor: '#e6e6e6',
      cursorAccent: '#0a0a0a',
      selectionBackground: '#2b4a7a',
      black: '#1c1c1c',
      red: '#ff6b6b',
      green: '#3fcf8e',
      yellow: '#f5c451',
      blue: '#6aa8ff',
      magenta: '#c792ea',
      cyan: '#56d4dd',
      white: '#d6d6d6',
      brightBlack: '#6b6b6b',
      brightRed: '#ff8787',
      brightGreen: '#69e0a8',
      brightYellow: '#ffd580',
      brightBlue: '#8fbfff',
      brightMagenta: '#ddb3ff',
      brightCyan: '#86e5ec',
      brightWhite: '#ffffff',
    },
  });
  const fitAddon = new FitAddon();
  term.loadAddon(fitAddon);
  term.open(element);

  /** The renderer in use: `webgl`, or `dom` when WebGL is unavailable or its context was lost. */
  let renderer = 'dom';
  function useDomRenderer() {
    renderer = 'dom';
    term.options.lineHeight = 1.0;
    term.options.fontFamily = DOM_FONTS;
    term.options.fontSize = DOM_FONT_SIZE;
  }
  try {
    // `?renderer=dom` keeps the DOM renderer (for a browser whose WebGL misbehaves, and tests).
    if (new URLSearchParams(location.search).get('renderer') === 'dom') throw new Error('the DOM renderer was asked for');
    const webgl = new WebglAddon();
    webgl.onContextLoss(() => {
      webgl.dispose();
      useDomRenderer();
      fitNow();
    });
    term.loadAddon(webgl);
    renderer = 'webgl';
    term.options.fontFamily = FONTS;
    term.options.fontSize = FONT_SIZE;
    term.options.lineHeight = WEBGL_LINE_HEIGHT;
  } catch {
    useDomRenderer();
  }

  function fitNow() {
    try {
      fitAddon.fit();
    } catch {
      // Not laid out yet (a hidden tab): the next resize fits.
    }
  }
  fitNow();
  let fitFrame = 0;
  const refit = () => {
    cancelAnimationFrame(fitFrame);
    fitFrame = requestAnimationFrame(fitNow);
  };
  window.addEventListener('resize', refit);
  new ResizeObserver(refit).observe(element);

  return { term, fitAddon, fitNow, renderer: () => renderer };
}
