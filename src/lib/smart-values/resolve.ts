// Smart values: the authoring form of workflow fields (and later app specs).
// A value is resolved member by member; strings may hold `{{ }}` templates,
// and an object with a `$` key is a directive:
//   { "$jsonata": "expr" }               the expression's raw value
//   { "$literal": x }                    x exactly as written, never resolved
//   { "$rows": <smart value>, "$pipe": "expr" }
//                                        the rows (an array), reshaped by expr, which reads them as `$rows`
// One smart value is one evaluation: its expressions share one set of bounds.
import { Guard, type EvaluationLimits } from "./bounds";
import { ExpressionError, ExpressionSyntaxError } from "./errors";
import { compileExpression, type Scope } from "./expression";
import { parseTemplate, stringForm } from "./template";

export interface ResolveOptions {
  /** What the field takes: a whole-string `{{ }}` gives its value as is (`json`, the default) or its string form (`string`). */
  expects?: "string" | "json";
  limits?: EvaluationLimits;
}

type Directive = { kind: "jsonata"; text: unknown } | { kind: "literal"; value: unknown } | { kind: "rows"; rows: unknown; pipe: unknown };

const DIRECTIVES = "$jsonata, $literal, or $rows with $pipe";

/** The directive an object spells, undefined for a plain object, or a thrown ExpressionSyntaxError for a malformed one. */
function directiveOf(value: Record<string, unknown>, path: string): Directive | undefined {
  const keys = Object.keys(value);
  const dollar = keys.filter((key) => key.startsWith("$"));
  if (dollar.length === 0) return undefined;
  const shape = keys.slice().sort().join(",");
  if (shape === "$jsonata") return { kind: "jsonata", text: value.$jsonata };
  if (shape === "$literal") return { kind: "literal", value: value.$literal };
  if (shape === "$pipe,$rows") return { kind: "rows", rows: value.$rows, pipe: value.$pipe };
  const unknown = dollar.find((key) => key !== "$jsonata" && key !== "$literal" && key !== "$rows" && key !== "$pipe");
  const reason = unknown
    ? `${JSON.stringify(unknown)} is not a directive (directives: ${DIRECTIVES}; wrap data with $-keys in {"$literal": ...})`
    : `an object with ${dollar.map((key) => JSON.stringify(key)).join(", ")} must hold exactly ${DIRECTIVES}`;
  throw new ExpressionSyntaxError(at(path, reason));
}

function expressionText(text: unknown, path: string): string {
  if (typeof text !== "string") throw new ExpressionSyntaxError(at(path, "must be a JSONata expression string"));
  return text;
}

const at = (path: string, message: string) => (path ? `${path}: ${message}` : message);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const member = (path: string, key: string) => (!IDENTIFIER.test(key) ? `${path}[${JSON.stringify(key)}]` : path ? `${path}.${key}` : key);
const item = (path: string, index: number) => `${path}[${index}]`;

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

class Resolver {
  constructor(
    private readonly scope: Scope,
    private readonly guard: Guard,
  ) {}

  private async expression(text: string, path: string, variables?: Record<string, unknown>): Promise<unknown> {
    try {
      return await compileExpression(text).run(this.guard, this.scope, variables);
    } catch (err) {
      if (err instanceof ExpressionSyntaxError) throw new ExpressionSyntaxError(at(path, err.message), err.position);
      throw new ExpressionError(at(path, (err as Error).message));
    }
  }

  async resolve(value: unknown, path: string, expects: "string" | "json"): Promise<unknown> {
    if (typeof value === "string") return this.template(value, path, expects);
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (let i = 0; i < value.length; i++) out.push(await this.resolve(value[i], item(path, i), "json"));
      return out;
    }
    if (!isPlainObject(value)) return value;
    const directive = directiveOf(value, path);
    if (!directive) {
      const entries: [string, unknown][] = [];
      for (const [key, member_] of Object.entries(value)) {
        // A member that resolves to nothing is absent, as JSON would carry it.
        const resolved = await this.resolve(member_, member(path, key), "json");
        if (resolved !== undefined) entries.push([key, resolved]);
      }
      return Object.fromEntries(entries);
    }
    switch (directive.kind) {
      case "literal":
        return directive.value;
      case "jsonata":
        return this.expression(expressionText(directive.text, member(path, "$jsonata")), member(path, "$jsonata"));
      case "rows": {
        const pipe = expressionText(directive.pipe, member(path, "$pipe"));
        const rows = await this.resolve(directive.rows, member(path, "$rows"), "json");
        if (!Array.isArray(rows)) throw new ExpressionError(at(member(path, "$rows"), `must give an array, got ${rows === undefined ? "nothing" : JSON.stringify(rows).slice(0, 60)}`));
        return this.expression(pipe, member(path, "$pipe"), { rows });
      }
    }
  }

  private async template(text: string, path: string, expects: "string" | "json"): Promise<unknown> {
    let parts;
    try {
      parts = parseTemplate(text);
    } catch (err) {
      throw new ExpressionSyntaxError(at(path, (err as Error).message), (err as ExpressionSyntaxError).position);
    }
    if (parts.length === 1 && "expression" in parts[0]) {
      const value = await this.expression(parts[0].expression, path);
      return expects === "string" ? stringForm(value) : value;
    }
    let out = "";
    for (const part of parts) {
      out += "literal" in part ? part.literal : stringForm(await this.expression(part.expression, path));
      this.guard.charge(out.length);
    }
    return out;
  }
}

/** Resolves a smart value against `scope`; throws ExpressionSyntaxError (malformed) or ExpressionError (failed evaluation). */
export function resolveSmartValue(value: unknown, scope: Scope, options: ResolveOptions = {}): Promise<unknown> {
  return new Resolver(scope, new Guard(options.limits)).resolve(value, "", options.expects ?? "json");
}

/**
 * Every JSONata expression inside a smart value with the path of the field
 * holding it (`<path>.headers.x`, `<path>.items[2]`, `<path>.$pipe`), for
 * compile checks at save time; throws ExpressionSyntaxError, naming the path,
 * for a malformed directive or an unclosed `{{`.
 */
export function expressionsIn(value: unknown, path: string): { path: string; text: string }[] {
  const found: { path: string; text: string }[] = [];
  const walk = (node: unknown, where: string): void => {
    if (typeof node === "string") {
      let parts;
      try {
        parts = parseTemplate(node);
      } catch (err) {
        throw new ExpressionSyntaxError(at(where, (err as Error).message), (err as ExpressionSyntaxError).position);
      }
      for (const part of parts) if ("expression" in part) found.push({ path: where, text: part.expression });
    } else if (Array.isArray(node)) node.forEach((child, i) => walk(child, item(where, i)));
    else if (isPlainObject(node)) {
      const directive = directiveOf(node, where);
      if (!directive) for (const [key, child] of Object.entries(node)) walk(child, member(where, key));
      else if (directive.kind === "jsonata") found.push({ path: member(where, "$jsonata"), text: expressionText(directive.text, member(where, "$jsonata")) });
      else if (directive.kind === "rows") {
        walk(directive.rows, member(where, "$rows"));
        found.push({ path: member(where, "$pipe"), text: expressionText(directive.pipe, member(where, "$pipe")) });
      }
    }
  };
  walk(value, path);
  return found;
}
