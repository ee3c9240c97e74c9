// Element building. Answer data is untrusted: it reaches the page only as
// text nodes and as attribute values of attributes that cannot run script
// (URLs pass `safeUrl` first). Nothing here parses HTML.
export type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined>;

/** An element with attributes (`false`/`null`/`undefined` left out, `true` as an empty value) and children (strings as text). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG = "http://www.w3.org/2000/svg";
export function svg(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  const el = document.createElementNS(SVG, tag) as SVGElement;
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el: Element, attrs: Attrs) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    el.setAttribute(name, value === true ? "" : String(value));
  }
}

export function append(el: Node, children: Child[]) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** A scalar shown as text; anything else as its JSON (never as markup). */
export function str(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return "";
  }
}

export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The value at a dotted path of a row (`customer.name`). */
export function at(row: unknown, path: string): unknown {
  let v: unknown = row;
  for (const key of path.split(".")) {
    if (!isObj(v) && !Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** A URL a link or image may carry: http(s) (and mailto for links), resolved against the page; anything else (javascript:, data:) is refused. */
export function safeUrl(value: unknown, kinds: string[] = ["http:", "https:"]): string | undefined {
  if (typeof value !== "string" || !value.trim()) return undefined;
  try {
    const url = new URL(value, document.baseURI);
    return kinds.includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

const CSS_LENGTH = /^(0|[0-9]+(\.[0-9]+)?(px|rem|em|vh|vw|%))$/;
/** Sets a CSS length through the CSSOM (allowed under a strict CSP, unlike a style attribute), when it is one. */
export function setLength(el: HTMLElement, prop: "width" | "height" | "maxHeight", value: unknown) {
  if (typeof value === "string" && CSS_LENGTH.test(value)) el.style[prop] = value;
}

let counter = 0;
/** An element id unique in the page. */
export const uid = (hint: string) => `pf-${++counter}-${hint.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 40)}`;
