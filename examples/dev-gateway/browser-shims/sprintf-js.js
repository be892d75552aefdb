// ESM face for sprintf-js (published as a script that sets window.sprintf), so just-bash's
// browser bundle can `import { sprintf } from "sprintf-js"` through the page's import map.
import '/node_modules/sprintf-js/src/sprintf.js';

export const { sprintf, vsprintf } = globalThis;
