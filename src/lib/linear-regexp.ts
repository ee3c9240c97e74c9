// Tenant regular expressions (JSON Schema `pattern`, `patternProperties`,
// `propertyNames`) run on RE2 (re2js), whose matching time is linear in the
// input. JavaScript's backtracking engine let `^(a+)+$` against 32 `a`s and a
// `!` hold the Worker, and every tenant on it, for two minutes.
//
// Patterns are written in ECMA-262 syntax with the `u` flag, as JSON Schema
// says; they are translated to RE2 syntax so both engines agree on what each
// construct means (`.`, `\s` and `\S` differ between them). What RE2 cannot
// run in linear time (backreferences, lookaround) is refused.
import { RE2JS } from "re2js";

/** Captured before withLinearRegExp can swap the global. */
const NativeRegExp = RegExp;

/** A valid ECMAScript pattern that RE2 cannot run; `reason` names the construct. */
export class UnsupportedPattern extends Error {
  constructor(
    message: string,
    readonly reason = message,
  ) {
    super(message);
  }
}

/** ECMAScript's `\s`: WhiteSpace and LineTerminator (ECMA-262 22.2.2.9); RE2's `\s` is ASCII only. */
const SPACE = "\\t\\n\\x{b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}";
/** The complement of SPACE as ranges, for `\S` inside a class, where RE2 has no way to negate a part. */
const NOT_SPACE =
  "\\x{0}-\\x{8}\\x{e}-\\x{1f}\\x{21}-\\x{9f}\\x{a1}-\\x{167f}\\x{1681}-\\x{1fff}\\x{200b}-\\x{2027}\\x{202a}-\\x{202e}\\x{2030}-\\x{205e}\\x{2060}-\\x{2fff}\\x{3001}-\\x{fefe}\\x{ff00}-\\x{10ffff}";
/** ECMAScript's `.` stops at every LineTerminator; RE2's only at `\n`. */
const DOT = "[^\\n\\r\\x{2028}\\x{2029}]";

/** ECMAScript accepts General_Category values by long name; RE2 only by short name. */
const CATEGORY: Record<string, string> = {
  Other: "C",
  Control: "Cc",
  Format: "Cf",
  Unassigned: "Cn",
  Private_Use: "Co",
  Surrogate: "Cs",
  Letter: "L",
  Lowercase_Letter: "Ll",
  Modifier_Letter: "Lm",
  Other_Letter: "Lo",
  Titlecase_Letter: "Lt",
  Uppercase_Letter: "Lu",
  Mark: "M",
  Combining_Mark: "M",
  Spacing_Mark: "Mc",
  Enclosing_Mark: "Me",
  Nonspacing_Mark: "Mn",
  Number: "N",
  Decimal_Number: "Nd",
  digit: "Nd",
  Letter_Number: "Nl",
  Other_Number: "No",
  Punctuation: "P",
  punct: "P",
  Connector_Punctuation: "Pc",
  Dash_Punctuation: "Pd",
  Close_Punctuation: "Pe",
  Final_Punctuation: "Pf",
  Initial_Punctuation: "Pi",
  Other_Punctuation: "Po",
  Open_Punctuation: "Ps",
  Symbol: "S",
  Currency_Symbol: "Sc",
  Modifier_Symbol: "Sk",
  Math_Symbol: "Sm",
  Other_Symbol: "So",
  Separator: "Z",
  Line_Separator: "Zl",
  Paragraph_Separator: "Zp",
  Space_Separator: "Zs",
};

const hex = (code: number) => `\\x{${code.toString(16)}}`;

/** `\p{…}`'s name in RE2 terms: General_Category values and Script names; anything else is left for RE2 to refuse. */
function propertyName(body: string): string {
  const [name, value] = body.includes("=") ? body.split("=") : [undefined, body];
  if (name === undefined || name === "General_Category" || name === "gc") return CATEGORY[value] ?? value;
  if (name === "Script" || name === "sc") return value;
  throw new UnsupportedPattern(`the Unicode property ${name}`);
}

/**
 * Rewrites an ECMAScript `u`-mode pattern into RE2 syntax. The caller has
 * already checked that the pattern compiles in ECMAScript, so only valid
 * syntax reaches here.
 */
export function toRe2(source: string): string {
  const chars = Array.from(source);
  let out = "";
  let inClass = false;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === "\\") {
      const [text, used] = escape(chars, i + 1, inClass);
      out += text;
      i += used;
    } else if (inClass) {
      if (c === "]") inClass = false;
      // RE2 reads `[:alpha:]` inside a class as a POSIX class; ECMAScript as the characters.
      out += c === "[" ? "\\[" : c;
    } else if (c === "[") {
      // `[]` matches nothing and `[^]` anything in ECMAScript; RE2 refuses both spellings.
      if (chars[i + 1] === "]") (out += "[^\\x{0}-\\x{10ffff}]"), (i += 1);
      else if (chars[i + 1] === "^" && chars[i + 2] === "]") (out += "[\\x{0}-\\x{10ffff}]"), (i += 2);
      else {
        inClass = true;
        out += c;
        if (chars[i + 1] === "^") (out += "^"), (i += 1);
      }
    } else if (c === ".") out += DOT;
    else if (c === "(" && chars[i + 1] === "?") {
      const next = chars[i + 2];
      if (next === ":") (out += "(?:"), (i += 2);
      else if (next === "=" || next === "!" || (next === "<" && (chars[i + 3] === "=" || chars[i + 3] === "!"))) {
        throw new UnsupportedPattern("lookahead and lookbehind");
      } else if (next === "<") {
        // Only whether a pattern matches is ever asked, so a named group needs no name.
        const close = chars.indexOf(">", i + 3);
        out += "(";
        i = close;
      } else throw new UnsupportedPattern("inline modifiers");
    } else out += c;
  }
  return out;
}

/** One escape starting at `chars[at]` (after the backslash): its RE2 text and how many characters it used. */
function escape(chars: string[], at: number, inClass: boolean): [string, number] {
  const c = chars[at];
  switch (c) {
    case "d":
    case "D":
    case "w":
    case "W":
    case "f":
    case "n":
    case "r":
    case "t":
    case "v":
      return [`\\${c}`, 1];
    case "b":
    case "B":
      // Inside a class `\b` is the backspace character (`\B` there is not ECMAScript).
      return [inClass ? "\\x{8}" : `\\${c}`, 1];
    case "s":
      return [inClass ? SPACE : `[${SPACE}]`, 1];
    case "S":
      return [inClass ? NOT_SPACE : `[^${SPACE}]`, 1];
    case "0":
      return ["\\x{0}", 1];
    case "c":
      return [hex(chars[at + 1].charCodeAt(0) % 32), 2];
    case "x":
      return [`\\x{${chars[at + 1]}${chars[at + 2]}}`, 3];
    case "u": {
      if (chars[at + 1] === "{") {
        const close = chars.indexOf("}", at);
        return [`\\x{${chars.slice(at + 2, close).join("")}}`, close - at + 1];
      }
      const code = parseInt(chars.slice(at + 1, at + 5).join(""), 16);
      // `\uD83D\uDE00` is one code point in `u` mode.
      if (code >= 0xd800 && code <= 0xdbff && chars[at + 5] === "\\" && chars[at + 6] === "u") {
        const low = parseInt(chars.slice(at + 7, at + 11).join(""), 16);
        if (low >= 0xdc00 && low <= 0xdfff) return [hex((code - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000), 11];
      }
      return [hex(code), 5];
    }
    case "p":
    case "P": {
      const close = chars.indexOf("}", at);
      return [`\\${c}{${propertyName(chars.slice(at + 2, close).join(""))}}`, close - at + 1];
    }
    case "k":
      throw new UnsupportedPattern("backreferences");
    default:
      if (c >= "1" && c <= "9") throw new UnsupportedPattern("backreferences");
      // In `u` mode only syntax characters, `/` and (in a class) `-` can be escaped; RE2 takes them as literals too.
      return [`\\${c}`, 1];
  }
}

const MAX_CACHED = 1000;
const compiled = new Map<string, RE2JS>();

/** The RE2 program for an ECMAScript pattern; throws UnsupportedPattern for what RE2 cannot run. */
export function linearRegExp(source: string): RE2JS {
  let re = compiled.get(source);
  if (!re) {
    try {
      re = RE2JS.compile(toRe2(source));
    } catch (e) {
      const reason = e instanceof UnsupportedPattern ? e.message : (e as Error).message.replace(/^error parsing regexp: /, "");
      throw new UnsupportedPattern(`pattern ${JSON.stringify(source)} uses what the linear-time regex engine cannot run: ${reason}`, reason);
    }
    if (compiled.size >= MAX_CACHED) compiled.clear();
    compiled.set(source, re);
  }
  return re;
}

/** Why a pattern cannot be used (not ECMAScript `u` syntax, or not runnable in linear time), or undefined. */
export function patternProblem(source: string): string | undefined {
  try {
    new NativeRegExp(source, "u");
  } catch {
    return "is not a valid ECMAScript regular expression";
  }
  try {
    linearRegExp(source);
    return undefined;
  } catch (e) {
    return `uses what the linear-time regex engine cannot run: ${(e as UnsupportedPattern).reason}`;
  }
}

/** What @cfworker/json-schema gets for `new RegExp(pattern, "u")` while a validation runs: the native syntax check, then RE2 for matching. */
function LinearRegExp(source: string, flags?: string) {
  // The native constructor only parses (linear); keeping its SyntaxError keeps `format: "regex"` exactly ECMAScript's.
  new NativeRegExp(source, flags);
  return { test: (input: string) => linearRegExp(source).test(input) };
}

/**
 * Runs `fn` with the global RegExp constructor standing in for RE2. The JSON
 * Schema validator builds every `pattern` with `new RegExp(…, "u")` and offers
 * no hook; validation is synchronous, so nothing else runs while the stand-in
 * is in place.
 */
export function withLinearRegExp<T>(fn: () => T): T {
  const previous = globalThis.RegExp;
  globalThis.RegExp = LinearRegExp as unknown as RegExpConstructor;
  try {
    return fn();
  } finally {
    globalThis.RegExp = previous;
  }
}
