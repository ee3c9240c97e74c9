// Reads an upsert body without materialising all its rows: the bytes are
// kept once, the `data` array is scanned for element boundaries, and each row
// is parsed only when it is needed (once to validate, once to write). At
// 100,000 rows this keeps the Worker far below its 128 MB, where parsing the
// whole document into objects would not be.
import { ApiError } from "../../lib/errors";
import { guardJson } from "../../lib/input-guard";

const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  COMMA = 0x2c,
  COLON = 0x3a;
const OPEN_OBJ = 0x7b,
  CLOSE_OBJ = 0x7d,
  OPEN_ARR = 0x5b,
  CLOSE_ARR = 0x5d;

const malformed = (at: number) => new ApiError("BAD_REQUEST", "Request body is not valid JSON", { reason: `unexpected input at byte ${at}` });

function isSpace(b: number) {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** The rows of an upsert, each available as its JSON text or parsed, on demand. */
export interface RowSource {
  count: number;
  /** The JSON text of row i. */
  text(i: number): string;
  /** Row i parsed (400 BAD_REQUEST when it is not JSON, 422 when it holds what cannot be stored). */
  parse(i: number): unknown;
  /** How error lines name row i (default `data[i]`; CSV import names the line). */
  label?(i: number): string;
}

export interface ScannedBody {
  /** Every top-level member except `data` (which becomes an empty array when it was one). */
  envelope: Record<string, unknown>;
  /** The elements of `data`. */
  rows: RowSource;
}

export function scanUpsertBody(bytes: Uint8Array): ScannedBody {
  const decoder = new TextDecoder();
  let i = 0;
  const skip = () => {
    while (i < bytes.length && isSpace(bytes[i])) i++;
  };
  const endOfString = (at: number) => {
    let j = at + 1;
    while (j < bytes.length) {
      if (bytes[j] === BACKSLASH) j += 2;
      else if (bytes[j] === QUOTE) return j + 1;
      else j++;
    }
    throw malformed(at);
  };
  const endOfValue = (at: number) => {
    const first = bytes[at];
    if (first === QUOTE) return endOfString(at);
    if (first === OPEN_OBJ || first === OPEN_ARR) {
      let depth = 0;
      let j = at;
      while (j < bytes.length) {
        const b = bytes[j];
        if (b === QUOTE) {
          j = endOfString(j);
          continue;
        }
        if (b === OPEN_OBJ || b === OPEN_ARR) depth++;
        else if (b === CLOSE_OBJ || b === CLOSE_ARR) {
          depth--;
          if (depth === 0) return j + 1;
        }
        j++;
      }
      throw malformed(at);
    }
    let j = at;
    while (j < bytes.length && bytes[j] !== COMMA && bytes[j] !== CLOSE_OBJ && bytes[j] !== CLOSE_ARR && !isSpace(bytes[j])) j++;
    if (j === at) throw malformed(at);
    return j;
  };
  const parseText = (text: string, start: number) => {
    try {
      return JSON.parse(text);
    } catch {
      throw malformed(start);
    }
  };
  const parse = (start: number, end: number) => parseText(decoder.decode(bytes.subarray(start, end)), start);
  // Rows are written from their text as sent, so each is guarded as it is parsed for validation, before any write.
  const parseRow = (k: number) => {
    const text = decoder.decode(bytes.subarray(starts[k], ends[k]));
    const row = parseText(text, starts[k]);
    guardJson(row, { base: `data[${k}]`, depth: 2, source: text });
    return row;
  };

  skip();
  if (bytes[i] !== OPEN_OBJ) throw new ApiError("BAD_REQUEST", "Request body must be a JSON object");
  i++;
  const envelope: Record<string, unknown> = {};
  let starts = new Uint32Array(0);
  let ends = new Uint32Array(0);
  let count = 0;
  skip();
  while (bytes[i] !== CLOSE_OBJ) {
    if (bytes[i] !== QUOTE) throw malformed(i);
    const keyEnd = endOfString(i);
    const key = parse(i, keyEnd) as string;
    i = keyEnd;
    skip();
    if (bytes[i] !== COLON) throw malformed(i);
    i++;
    skip();
    if (key === "data" && bytes[i] === OPEN_ARR) {
      i++;
      const s: number[] = [];
      const e: number[] = [];
      skip();
      while (bytes[i] !== CLOSE_ARR) {
        const end = endOfValue(i);
        s.push(i);
        e.push(end);
        i = end;
        skip();
        if (bytes[i] === COMMA) {
          i++;
          skip();
        } else if (bytes[i] !== CLOSE_ARR) throw malformed(i);
      }
      i++;
      starts = Uint32Array.from(s);
      ends = Uint32Array.from(e);
      count = s.length;
      envelope.data = [];
    } else {
      const end = endOfValue(i);
      envelope[key] = parse(i, end);
      i = end;
    }
    skip();
    if (bytes[i] === COMMA) {
      i++;
      skip();
    } else if (bytes[i] !== CLOSE_OBJ) throw malformed(i);
  }
  i++;
  skip();
  if (i !== bytes.length) throw malformed(i);
  guardJson(envelope);
  return {
    envelope,
    rows: { count, text: (k) => decoder.decode(bytes.subarray(starts[k], ends[k])), parse: parseRow },
  };
}
