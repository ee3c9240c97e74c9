// A small Markdown renderer that builds elements: paragraphs, headings, lists,
// quotes, fenced code, `code`, **strong**, *emphasis* and [links](https://...).
// Raw HTML is not Markdown here: it stays text, as the catalogue says.
import { append, h, safeUrl, type Child } from "./dom";

// Underscores emphasise only outside words (`snake_case` and `__init__` stay as written), as in CommonMark.
const INLINE =
  /`([^`]+)`|\*\*(.+?)\*\*|(?<![A-Za-z0-9_])__(.+?)__(?![A-Za-z0-9_])|\*(.+?)\*|(?<![A-Za-z0-9_])_(.+?)_(?![A-Za-z0-9_])|\[([^\]]+)\]\(([^)\s]+)\)/;

function inline(text: string, depth = 0): Child[] {
  const out: Child[] = [];
  let rest = text;
  while (rest) {
    const m = depth < 4 ? INLINE.exec(rest) : null;
    if (!m) {
      out.push(rest);
      break;
    }
    if (m.index) out.push(rest.slice(0, m.index));
    if (m[1] !== undefined) out.push(h("code", {}, m[1]));
    else if (m[2] !== undefined || m[3] !== undefined) out.push(h("strong", {}, ...inline(m[2] ?? m[3], depth + 1)));
    else if (m[4] !== undefined || m[5] !== undefined) out.push(h("em", {}, ...inline(m[4] ?? m[5], depth + 1)));
    else {
      const href = safeUrl(m[7], ["http:", "https:", "mailto:"]);
      out.push(href ? h("a", { href, rel: "noopener noreferrer", target: "_blank" }, ...inline(m[6], depth + 1)) : m[0]);
    }
    rest = rest.slice(m.index + m[0].length);
  }
  return out;
}

export function markdown(source: string): HTMLElement {
  const root = h("div", { class: "pf-markdown" });
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i++;
      continue;
    }
    if (/^\s*```/.test(line)) {
      const code: string[] = [];
      for (i++; i < lines.length && !/^\s*```/.test(lines[i]); i++) code.push(lines[i]);
      i++;
      root.appendChild(h("pre", {}, h("code", {}, code.join("\n"))));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const tag = `h${heading[1].length}` as "h1";
      root.appendChild(h(tag, {}, ...inline(heading[2])));
      i++;
      continue;
    }
    const list = /^\s*([-*+]|\d+[.)])\s+/.exec(line);
    if (list) {
      const ordered = /\d/.test(list[1]);
      const el = h(ordered ? "ol" : "ul");
      const item = ordered ? /^\s*\d+[.)]\s+(.*)$/ : /^\s*[-*+]\s+(.*)$/;
      for (let m; i < lines.length && (m = item.exec(lines[i])); i++) el.appendChild(h("li", {}, ...inline(m[1])));
      root.appendChild(el);
      continue;
    }
    if (/^>\s?/.test(line)) {
      const quoted: string[] = [];
      for (; i < lines.length && /^>\s?/.test(lines[i]); i++) quoted.push(lines[i].replace(/^>\s?/, ""));
      root.appendChild(h("blockquote", {}, markdown(quoted.join("\n"))));
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      root.appendChild(h("hr"));
      i++;
      continue;
    }
    const para: string[] = [];
    for (; i < lines.length && lines[i].trim() && !/^(\s*```|#{1,6}\s|\s*([-*+]|\d+[.)])\s|>)/.test(lines[i]); i++) para.push(lines[i].trim());
    if (!para.length) para.push(lines[i++].trim());
    const p = h("p");
    para.forEach((text, n) => append(p, [n ? " " : null, ...inline(text)]));
    root.appendChild(p);
  }
  return root;
}
