// The one check every input passes where it enters (JSON bodies, upsert rows,
// query strings, path parameters, headers, CSV cells): refuse what JSON.parse
// and URL decoding accept but the service cannot keep. Postgres text and jsonb
// refuse NUL, and jsonb refuses an unpaired `\ud800` escape, so either would
// fail mid-write; a tree thousands of levels deep stores but then breaks every
// read of it; `1e400` comes back as null and `1e-400` as 0.
import { validationFailed } from "./validate";

/**
 * Levels of arrays and objects a JSON document may nest, the document itself
 * being level 1. The deepest request the API defines is a query-graph with
 * includes 5 levels down (11 levels), a filter of 25 composites (2 levels
 * each: the composite and its `filters` array) and a particle with an array
 * value: 63 levels. Twice that leaves room for filter values and attributes
 * while staying far below what Postgres's jsonb or the Worker would strain at.
 */
export const MAX_JSON_DEPTH = 128;

export const NOT_TEXT = "must not contain NUL characters or unpaired surrogates";
const NOT_KEY = "is a key with NUL characters or unpaired surrogates";
const TOO_DEEP = `nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`;
const TOO_LARGE = "is a number too large to store";
export const TOO_SMALL = "is a number too small to store (it would become 0)";
/** Rendered paths are cut to this many characters, so a deep or long-keyed path cannot swell the answer. */
const MAX_PATH_CHARS = 300;

export interface Problem {
  /** Where, as `a.b[2]`; the root is `(root)` (or the caller's base). */
  path: string;
  reason: string;
}

export interface GuardOptions {
  /** The rendered path of the value itself (`data[3]`, `X-Import-Config`). */
  base?: string;
  /** How many arrays and objects enclose the value in its document (an upsert row: 2). */
  depth?: number;
  /** The JSON text the value was parsed from; without it a number that underflowed to 0 cannot be told from a 0. */
  source?: string;
}

export function isCleanText(s: string): boolean {
  return !s.includes("\u0000") && s.isWellFormed();
}

/** True when `source` is a numeral with non-zero digits that reads as 0: its magnitude is below the smallest double. */
export function underflows(source: string): boolean {
  return Number(source) === 0 && /[1-9]/.test(source.split(/[eE]/)[0]);
}

/**
 * An underflow to 0 needs an exponent or over 300 zeros after a decimal
 * point, so text without either skips the second parse.
 */
const MAY_UNDERFLOW = /\d[eE]|\.0{300}/;
const UNDERFLOW = Symbol("underflow");

type Reviver = (this: unknown, key: string, value: unknown, context?: { source?: string }) => unknown;
/** JSON.parse source text access: a primitive's reviver sees the text it was read from. */
const markUnderflow: Reviver = (_key, value, context) => (value === 0 && context?.source !== undefined && underflows(context.source) ? UNDERFLOW : value);

interface PathNode {
  parent: PathNode | null;
  key: string | number;
}

function render(base: string, node: PathNode | null): string {
  const keys: (string | number)[] = [];
  for (let n = node; n; n = n.parent) keys.push(n.key);
  let out = base;
  for (let i = keys.length - 1; i >= 0; i--) {
    const k = keys[i];
    // Keys that could not be printed or read back are shown as JSON string literals.
    out += typeof k === "number" ? `[${k}]` : !isCleanText(k) || /[\x00-\x1f\x7f"[\]]/.test(k) ? `[${JSON.stringify(k)}]` : out ? `.${k}` : k;
    if (out.length > MAX_PATH_CHARS) return `${out.slice(0, MAX_PATH_CHARS)}…`;
  }
  return out || "(root)";
}

/** More problems than this end the walk; the answer then says there are more. */
const MAX_PROBLEMS = 20;

interface Pending {
  value: object;
  at: PathNode | null;
  depth: number;
}

/**
 * Walks a parsed value without recursion (a 10,000-deep tree must not
 * exhaust the stack) and lists its problems, at most MAX_PROBLEMS + 1.
 * Leaves are checked in document order as their container is read, then
 * the containers are taken first to last. Path nodes are made only for
 * containers and problems: an upsert body holds millions of leaves.
 */
class Walk {
  readonly problems: Problem[] = [];
  zero = false;
  private readonly stack: Pending[] = [];

  constructor(
    private readonly base: string,
    /** False when the source text shows no string can hold NUL or a lone surrogate. */
    private readonly texts: boolean,
  ) {}

  run(value: unknown, depth: number): this {
    this.visit(value, null, undefined, depth);
    const stack = this.stack;
    while (stack.length && this.problems.length <= MAX_PROBLEMS) {
      const { value: node, at, depth: d } = stack.pop()!;
      const from = stack.length;
      if (Array.isArray(node)) {
        for (let i = 0; i < node.length && this.problems.length <= MAX_PROBLEMS; i++) this.visit(node[i], at, i, d);
      } else {
        for (const key in node) {
          if (this.problems.length > MAX_PROBLEMS) break;
          if (this.texts && !isCleanText(key)) this.report(at, key, NOT_KEY);
          this.visit((node as Record<string, unknown>)[key], at, key, d);
        }
      }
      // The children were pushed first to last; the first must be popped first.
      for (let i = from, j = stack.length - 1; i < j; i++, j--) [stack[i], stack[j]] = [stack[j], stack[i]];
    }
    return this;
  }

  private visit(v: unknown, at: PathNode | null, key: string | number | undefined, d: number): void {
    if (typeof v === "string") {
      if (this.texts && !isCleanText(v)) this.report(at, key, NOT_TEXT);
    } else if (typeof v === "number") {
      if (v === 0) this.zero = true;
      else if (!Number.isFinite(v)) this.report(at, key, TOO_LARGE);
    } else if (typeof v === "object" && v !== null) {
      if (d >= MAX_JSON_DEPTH) this.report(at, key, TOO_DEEP);
      else this.stack.push({ value: v, at: key === undefined ? at : { parent: at, key }, depth: d + 1 });
    } else if (v === UNDERFLOW) this.report(at, key, TOO_SMALL);
  }

  private report(at: PathNode | null, key: string | number | undefined, reason: string): void {
    this.problems.push({ path: render(this.base, key === undefined ? at : { parent: at, key }), reason });
  }
}

/**
 * Text decoded from bytes is well-formed and JSON.parse refuses raw control
 * characters, so a parsed string can hold NUL or a lone surrogate only
 * through a `\u` escape; text without one lets the walk skip every string.
 */
function mayHoldBadText(source: string | undefined): boolean {
  return source === undefined || source.includes("\\u") || !source.isWellFormed();
}

/** What in a parsed JSON value (or a record of texts) the service cannot store or read back. */
export function jsonProblems(value: unknown, options: GuardOptions = {}): Problem[] {
  const { base = "", depth = 0, source } = options;
  const first = new Walk(base, mayHoldBadText(source)).run(value, depth);
  if (first.problems.length || !first.zero || source === undefined || !MAY_UNDERFLOW.test(source)) return first.problems;
  // Some 0 might have been a numeral too small for a double: read the text again, marking those. (Only
  // now that the depth is known to be bounded: V8 applies a reviver recursively.)
  return new Walk(base, false).run(JSON.parse(source, markUnderflow as Parameters<typeof JSON.parse>[1]), depth).problems;
}

export function problemLines(problems: Problem[]): string[] {
  const lines = problems.slice(0, MAX_PROBLEMS).map((p) => `${p.path}: ${p.reason}`);
  return problems.length > MAX_PROBLEMS ? [...lines, "... and more"] : lines;
}

/** Throws 422 VALIDATION_FAILED naming every problem's path, before anything reads the value further. */
export function guardJson(value: unknown, options: GuardOptions & { message?: string } = {}): void {
  const problems = jsonProblems(value, options);
  if (problems.length) throw validationFailed(problemLines(problems), options.message);
}
