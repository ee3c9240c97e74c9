// `{{ expr }}` templates inside strings. An expression ends at the first `}}`
// outside its string literals, quoted names, comments and braces, so
// `{{ {"a": {"b": 1}} }}` is one expression.
import { ExpressionSyntaxError } from "./errors";

export type Part = { literal: string } | { expression: string; offset: number };

/** Where the `}}` closing an expression that starts at `from` is, or -1. */
function closing(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'" || c === "`") {
      // Backslash escapes apply inside string literals only; a quoted name (`a b`) ends at the next backtick.
      for (i++; i < text.length && text[i] !== c; i++) if (c !== "`" && text[i] === "\\") i++;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      if (end < 0) return -1;
      i = end + 1;
    } else if (c === "{") depth++;
    else if (c === "}") {
      if (depth === 0 && text[i + 1] === "}") return i;
      depth--;
    }
  }
  return -1;
}

/** The literal text and `{{ }}` expressions of a string, in order; a string without `{{` is one literal. */
export function parseTemplate(text: string): Part[] {
  const parts: Part[] = [];
  let at = 0;
  for (let open = text.indexOf("{{"); open >= 0; open = text.indexOf("{{", at)) {
    const close = closing(text, open + 2);
    if (close < 0) throw new ExpressionSyntaxError(`"{{" at character ${open} has no closing "}}"`, open);
    if (open > at) parts.push({ literal: text.slice(at, open) });
    parts.push({ expression: text.slice(open + 2, close), offset: open + 2 });
    at = close + 2;
  }
  if (at < text.length) parts.push({ literal: text.slice(at) });
  return parts;
}

/** The string form a value takes inside text: strings as they are, nothing for undefined, JSON for the rest. */
export function stringForm(value: unknown): string {
  if (value === undefined) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}
