// A deterministic embedder for tests (fxbot DESIGN §11.2): feature hashing of lowercase word
// tokens (and their character trigrams, so near-duplicates land near each other) into `dims`
// dimensions. It speaks createFxbot's `embedder` interface: `{ model, embed(texts) }`.

function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** `{ model, embed, calls, fail, hang }`: set `fail` (an Error) or `hang` (true) to misbehave. */
export function hashingEmbedder({ dims = 64, model = 'hashing-64' } = {}) {
  const state = {
    model,
    calls: [],
    fail: null,
    hang: false,
    async embed(texts) {
      state.calls.push(texts.length);
      if (state.hang) return new Promise(() => {});
      if (state.fail) throw state.fail;
      return texts.map((text) => {
        const v = new Float32Array(dims);
        const words = text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
        for (const word of words) {
          v[hash(word) % dims] += 1;
          for (let i = 0; i + 3 <= word.length; i += 1) v[hash(`#${word.slice(i, i + 3)}`) % dims] += 0.5;
        }
        if (words.length === 0) v[0] = 1;
        return v;
      });
    },
  };
  return state;
}
