// A JSON object one of whose fields is already JSON text (built by Postgres),
// written without parsing and re-serialising it.

/** `{"<field>": <raw>, ...rest}`; `raw` must be valid JSON. */
export function objectWithRaw(field: string, raw: string, rest: Record<string, unknown>): string {
  const others = JSON.stringify(rest);
  return `{${JSON.stringify(field)}:${raw}${others === "{}" ? "" : `,${others.slice(1, -1)}`}}`;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
/** Integers of up to 15 digits print alike in Postgres and JavaScript. */
const EXACT_DIGITS = 15;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** Digits, sign, point or exponent: a number token's characters after its first. */
const isNumberChar = (c: number) => (c >= ZERO && c <= NINE) || c === MINUS || c === 0x2b || c === 0x2e || c === 0x45 || c === 0x65;

/** The index just past the string literal opening at `start`. */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    let k = quote - 1;
    while (text.charCodeAt(k) === BACKSLASH) k--;
    // An even run of backslashes escapes itself, not the quote.
    if ((quote - 1 - k) % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/**
 * JSON text as JSON.parse then JSON.stringify would write it: no whitespace
 * between tokens, numbers as JavaScript prints them (Postgres keeps a
 * fraction's trailing zeros, `1.50`, and prints every digit, never an
 * exponent), everything else byte for byte (the two escape strings alike).
 * One pass that builds no values, for JSON Postgres printed (json_build_object
 * spaces its colons, jsonb its colons and commas); `text` must be valid JSON.
 */
export function compactJson(text: string): string {
  let out = "";
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
    } else if (isSpace(c)) {
      out += text.slice(copied, i);
      while (isSpace(text.charCodeAt(++i)));
      copied = i;
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      const start = i;
      let integer = true;
      for (let d = text.charCodeAt(++i); isNumberChar(d); d = text.charCodeAt(++i)) integer &&= d >= ZERO && d <= NINE;
      if (!integer || i - start - (c === MINUS ? 1 : 0) > EXACT_DIGITS) {
        out += text.slice(copied, start) + JSON.stringify(Number(text.slice(start, i)));
        copied = i;
      }
    } else {
      i++;
    }
  }
  return copied ? out + text.slice(copied) : text;
}
