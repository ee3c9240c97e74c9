// JSONata regular expressions (`/a+/i`) run on RE2 through the shared
// linear-time translation (../linear-regexp.ts): JavaScript's backtracking
// engine would let `$match(s, /(a+)+$/)` hold the isolate in a single step,
// where no step or time bound can interrupt it.
import { RE2JS } from "re2js";
import { linearRegExp, toRe2, type UnsupportedPattern } from "../linear-regexp";
import { ExpressionError } from "./errors";

const MAX_CACHED = 1000;
/** Patterns with JSONata's `i` / `m` flags; the shared cache holds the flagless ones. */
const flagged = new Map<string, RE2JS>();

function program(re: RegExp): RE2JS {
  const flags = (re.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | (re.multiline ? RE2JS.MULTILINE : 0);
  if (!flags) return linearRegExp(re.source);
  const key = `${flags}/${re.source}`;
  let compiled = flagged.get(key);
  if (!compiled) {
    // linearRegExp gives the pattern's own problems in its words; only then is it compiled with the flags.
    linearRegExp(re.source);
    compiled = RE2JS.compile(toRe2(re.source), flags);
    if (flagged.size >= MAX_CACHED) flagged.clear();
    flagged.set(key, compiled);
  }
  return compiled;
}

/** Why a JSONata regex literal cannot run, or undefined; for compile-time checks. */
export function regexProblem(re: RegExp): string | undefined {
  try {
    program(re);
    return undefined;
  } catch (err) {
    return (err as UnsupportedPattern).message;
  }
}

/**
 * The part of RegExp that JSONata's matcher uses: `exec` from `lastIndex`,
 * advancing it past the match (JSONata always sets the `g` flag).
 */
export class LinearRegexEngine {
  lastIndex = 0;
  private readonly re: RE2JS;

  constructor(re: RegExp) {
    try {
      this.re = program(re);
    } catch (err) {
      throw new ExpressionError((err as Error).message);
    }
  }

  exec(input: string): ((string | undefined)[] & { index: number }) | null {
    const m = this.re.matcher(input);
    if (this.lastIndex > input.length || !m.find(this.lastIndex)) {
      this.lastIndex = 0;
      return null;
    }
    const groups: (string | undefined)[] = [];
    for (let i = 0; i <= m.groupCount(); i++) groups.push(m.group(i) ?? undefined);
    this.lastIndex = m.end();
    return Object.assign(groups, { index: m.start() });
  }
}
