// A small Markdown renderer for the example pages: model replies shown as formatted text.
// It builds DOM nodes (createElement + textContent), never HTML strings, so nothing in a reply
// can become markup or script: raw HTML shows as text, and links keep only http(s) and mailto.
// Covered: paragraphs (a single newline is a line break, as in chat), ATX headings, fenced code
// blocks, bullet and numbered
// lists (one level of nesting by indent), block quotes, pipe tables, rules, and inline code,
// bold, italic, strike-through and links. Anything else stays plain text.

const SAFE_LINK = /^(https?:|mailto:)/i;

/** The inline pieces of `text` as DOM nodes (code spans first: nothing inside them is parsed). */
function inline(doc, text) {
  const out = [];
  const pattern = /(`+)([\s\S]*?)\1|\*\*([^*]+)\*\*|__([^_]+)__|~~([^~]+)~~|\*([^*\s][^*]*)\*|(?<![\w])_([^_\s][^_]*)_(?![\w])|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > last) out.push(doc.createTextNode(text.slice(last, m.index)));
    last = m.index + m[0].length;
    const [, , code, bold1, bold2, strike, em1, em2, label, href] = m;
    let node;
    if (code !== undefined) {
      node = doc.createElement('code');
      node.textContent = code.trim() === '' ? code : code.replace(/^ (.*) $/s, '$1');
    } else if (bold1 !== undefined || bold2 !== undefined) {
      node = doc.createElement('strong');
      node.append(...inline(doc, bold1 ?? bold2));
    } else if (strike !== undefined) {
      node = doc.createElement('del');
      node.append(...inline(doc, strike));
    } else if (em1 !== undefined || em2 !== undefined) {
      node = doc.createElement('em');
      node.append(...inline(doc, em1 ?? em2));
    } else if (SAFE_LINK.test(href)) {
      node = doc.createElement('a');
      node.href = href;
      node.rel = 'noopener noreferrer';
      node.target = '_blank';
      node.append(...inline(doc, label));
    } else {
      node = doc.createTextNode(m[0]);
    }
    out.push(node);
  }
  if (last < text.length) out.push(doc.createTextNode(text.slice(last)));
  return out;
}

const cells = (line) => line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
const isTableRule = (line) => /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line);
const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;

/**
 * Renders `text` (Markdown) into a DocumentFragment of `doc` (default: the page's document).
 * A reply still streaming renders fine: an unclosed code fence runs to the end.
 */
export function renderMarkdown(text, doc = globalThis.document) {
  const fragment = doc.createDocumentFragment();
  const lines = String(text).replace(/\r\n?/g, '\n').split('\n');
  const el = (tag, children = []) => {
    const node = doc.createElement(tag);
    node.append(...children);
    return node;
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      i += 1;
      continue;
    }
    const fence = line.match(/^\s*(```+|~~~+)\s*([\w+-]*)/);
    if (fence) {
      const body = [];
      i += 1;
      while (i < lines.length && !lines[i].trim().startsWith(fence[1])) {
        body.push(lines[i]);
        i += 1;
      }
      i += 1; // the closing fence
      const code = el('code');
      code.textContent = body.join('\n');
      if (fence[2]) code.dataset.language = fence[2];
      fragment.append(el('pre', [code]));
      continue;
    }
    const heading = line.match(/^(#{1,6})\s+(.*?)\s*#*\s*$/);
    if (heading) {
      fragment.append(el(`h${Math.min(heading[1].length + 2, 6)}`, inline(doc, heading[2])));
      i += 1;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      fragment.append(el('hr'));
      i += 1;
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && isTableRule(lines[i + 1])) {
      const head = el('tr', cells(line).map((c) => el('th', inline(doc, c))));
      const rows = [];
      i += 2;
      while (i < lines.length && lines[i].includes('|') && lines[i].trim() !== '') {
        rows.push(el('tr', cells(lines[i]).map((c) => el('td', inline(doc, c)))));
        i += 1;
      }
      fragment.append(el('table', [el('thead', [head]), el('tbody', rows)]));
      continue;
    }
    if (/^\s*>/.test(line)) {
      const quoted = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) {
        quoted.push(lines[i].replace(/^\s*>\s?/, ''));
        i += 1;
      }
      fragment.append(el('blockquote', [renderMarkdown(quoted.join('\n'), doc)]));
      continue;
    }
    const item = line.match(LIST_ITEM);
    if (item) {
      const ordered = /\d/.test(item[2]);
      const list = el(ordered ? 'ol' : 'ul');
      if (ordered && Number.parseInt(item[2], 10) !== 1) list.start = Number.parseInt(item[2], 10);
      const indent = item[1].length;
      while (i < lines.length) {
        const m = lines[i].match(LIST_ITEM);
        if (!m || m[1].length < indent || /\d/.test(m[2]) !== ordered) break;
        if (m[1].length > indent) {
          // A nested item: render the nested run into the last item.
          const nested = [];
          while (i < lines.length && (lines[i].match(LIST_ITEM)?.[1].length ?? -1) > indent) {
            nested.push(lines[i].slice(indent + 2));
            i += 1;
          }
          list.lastElementChild?.append(renderMarkdown(nested.join('\n'), doc));
          continue;
        }
        const li = el('li', inline(doc, m[3]));
        i += 1;
        // Continuation lines (indented, not a new item) belong to the item.
        while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !LIST_ITEM.test(lines[i])) {
          li.append(doc.createTextNode(' '), ...inline(doc, lines[i].trim()));
          i += 1;
        }
        list.append(li);
      }
      fragment.append(list);
      continue;
    }
    const paragraph = [];
    while (
      i < lines.length &&
      lines[i].trim() !== '' &&
      !/^\s*(```|~~~|#{1,6}\s|>)/.test(lines[i]) &&
      !LIST_ITEM.test(lines[i]) &&
      !(lines[i].includes('|') && i + 1 < lines.length && isTableRule(lines[i + 1]))
    ) {
      paragraph.push(lines[i].trim());
      i += 1;
    }
    const p = el('p');
    paragraph.forEach((part, n) => {
      if (n > 0) p.append(doc.createElement('br'));
      p.append(...inline(doc, part));
    });
    fragment.append(p);
  }
  return fragment;
}
