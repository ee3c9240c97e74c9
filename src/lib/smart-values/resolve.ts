// Smart values: the authoring form of workflow fields (and later app specs).
// A value is resolved member by member; strings may hold `{{ }}` templates,
// and an object with a `$` key is a directive of the registry in use
// (./directives.ts lists the built-in ones).
// One smart value is one evaluation: its expressions share one set of bounds.
import { budgetOf, type EvaluationBudget, type EvaluationLimits, type Guard } from "./bounds";
import { SMART_VALUE_DIRECTIVES } from "./directives";
import { ExpressionError, ExpressionSyntaxError } from "./errors";
import { compileExpression, withFunctions, type Scope } from "./expression";
import { at, expressionText, fail, item, member, refuse, type DirectiveRegistry } from "./registry";
import type { SecretWatch } from "./secrets";
import { parseTemplate, stringForm } from "./template";
import { isObject } from "../is-object";

export type ResolveOptions = {
  /** What the field takes: a whole-string `{{ }}` gives its value as is (`json`, the default) or its string form (`string`). */
  expects?: "string" | "json";
  /** The directives understood (default: the built-in ones). */
  directives?: DirectiveRegistry;
  /** Secrets to watch for: what an expression computes from one is handed to `derived` (./secrets.ts). */
  secrets?: SecretWatch;
  /** JSONata function expressions by name, callable as `$<name>(...)` in every expression of the value (an app spec's `functions`). */
  functions?: Readonly<Record<string, string>>;
} & (
  | { limits?: EvaluationLimits; budget?: never }
  /** A budget shared with the caller's other evaluations, drawn from instead of bounds of its own. */
  | { budget: EvaluationBudget; limits?: never }
);

function templateParts(text: string, path: string) {
  try {
    return parseTemplate(text);
  } catch (err) {
    throw new ExpressionSyntaxError(at(path, (err as Error).message), (err as ExpressionSyntaxError).position);
  }
}

class Resolver {
  constructor(
    private readonly scope: Scope,
    private readonly guard: Guard,
    private readonly directives: DirectiveRegistry,
    private readonly functions?: Readonly<Record<string, string>>,
  ) {}

  private async expression(text: string, path: string, variables?: Record<string, unknown>, input: unknown = this.scope): Promise<unknown> {
    try {
      const secrets = this.guard.secrets;
      // Each expression is judged on its own reads, so a secret one member reads does not mask its siblings.
      if (secrets) this.guard.readSecret = false;
      const value = await compileExpression(withFunctions(text, this.functions)).run(this.guard, input as Scope, variables);
      if (secrets && this.guard.readSecret) {
        secrets.derived(value);
        if (secrets.mask !== undefined) return secrets.mask;
      }
      return value;
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
    if (!isObject(value)) return value;
    const directive = this.directives.match(value, path);
    if (directive) {
      const use = { value, path };
      return directive.evaluate({
        ...use,
        scope: this.scope,
        text: (key) => expressionText(use, key),
        expression: (key, variables) => this.expression(expressionText(use, key), member(path, key), variables),
        resolve: (key) => this.resolve(value[key], member(path, key), "json"),
        rowExpression: (below, text, input) => this.expression(text, beneath(path, below), undefined, input),
        fail: (key, reason) => fail(use, key, reason),
      });
    }
    const entries: [string, unknown][] = [];
    for (const [key, member_] of Object.entries(value)) {
      // A member that resolves to nothing is absent, as JSON would carry it.
      const resolved = await this.resolve(member_, member(path, key), "json");
      if (resolved !== undefined) entries.push([key, resolved]);
    }
    return Object.fromEntries(entries);
  }

  private async template(text: string, path: string, expects: "string" | "json"): Promise<unknown> {
    const parts = templateParts(text, path);
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
export async function resolveSmartValue(value: unknown, scope: Scope, options: ResolveOptions = {}): Promise<unknown> {
  return budgetOf(options.budget ?? options.limits).evaluation((guard) => {
    if (options.secrets?.size) guard.secrets = options.secrets;
    return new Resolver(scope, guard, options.directives ?? SMART_VALUE_DIRECTIVES, options.functions).resolve(value, "", options.expects ?? "json");
  });
}

/** A path below a directive's own (`$pipe[0].map` below `config.rows`). */
const beneath = (path: string, below: string) => (path ? `${path}.${below}` : below);

/** One expression of a smart value; `input: "row"` when it reads a row (a `$pipe` step's), not the scope. */
export interface FoundExpression {
  path: string;
  text: string;
  input?: "row";
}

/**
 * Every JSONata expression inside a smart value with the path of the field
 * holding it (`<path>.headers.x`, `<path>.items[2]`, `<path>.$pipe`), as the
 * directives of `directives` declare theirs, for compile checks at save time;
 * throws ExpressionSyntaxError, naming the path, for a malformed directive or
 * an unclosed `{{`.
 */
export function expressionsIn(value: unknown, path: string, directives: DirectiveRegistry = SMART_VALUE_DIRECTIVES): FoundExpression[] {
  const found: FoundExpression[] = [];
  const walk = (node: unknown, where: string): void => {
    if (typeof node === "string") {
      for (const part of templateParts(node, where)) if ("expression" in part) found.push({ path: where, text: part.expression });
    } else if (Array.isArray(node)) node.forEach((child, i) => walk(child, item(where, i)));
    else if (isObject(node)) {
      const directive = directives.match(node, where);
      if (!directive) {
        for (const [key, child] of Object.entries(node)) walk(child, member(where, key));
        return;
      }
      const use = { value: node, path: where };
      directive.check({
        ...use,
        expression: (key) => void found.push({ path: member(where, key), text: expressionText(use, key) }),
        smartValue: (key) => walk(node[key], member(where, key)),
        rowExpression: (below, text) => void found.push({ path: beneath(where, below), text, input: "row" }),
        refuse: (key, reason) => refuse(use, key, reason),
      });
    }
  };
  walk(value, path);
  return found;
}
