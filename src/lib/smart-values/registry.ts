// The `$`-directives of smart values. A directive is an object spelled by an
// exact set of `$`-keys, registered once with what it does at save time
// (name the expressions and smart values it holds, so the definition checks
// compile and scope-check them) and at run time (its value). The resolver
// and the save-time walk know directives only through a registry, so a new
// producer (an app's `$query`, `$http`, `$typeSchema`) is one registration.
import { ExpressionError, ExpressionSyntaxError } from "./errors";
import type { Scope } from "./expression";

/** What both phases see of one use of a directive. */
interface DirectiveUse {
  /** The object as written. */
  readonly value: Readonly<Record<string, unknown>>;
  /** Where it sits (`config.items[2]`); a member's path is `<path>.<key>`. */
  readonly path: string;
}

/** Save time: a directive declares what it holds, by member key. */
export interface DirectiveCheck extends DirectiveUse {
  /** The member is a JSONata expression, compiled and checked with the document's others; a non-string is refused. */
  expression(key: string): void;
  /** The member is a smart value, walked like any other. */
  smartValue(key: string): void;
  /**
   * An expression written deeper inside a member (`$pipe[0].map`, a path
   * below the directive), whose input is a row rather than the scope: it is
   * compiled with the document's others, but what it reads is the row's.
   */
  rowExpression(path: string, text: string): void;
  /** Refuses the directive as malformed (ExpressionSyntaxError at the member's path). */
  refuse(key: string, reason: string): never;
}

/** Run time: a directive's value from its members, under the evaluation's bounds. */
export interface DirectiveRun extends DirectiveUse {
  readonly scope: Scope;
  /** The member's expression text; a non-string is refused (ExpressionSyntaxError). */
  text(key: string): string;
  /** The member's expression against the scope, with extra variables (`{ rows }` is `$rows`). */
  expression(key: string, variables?: Record<string, unknown>): Promise<unknown>;
  /** The member resolved as a smart value. */
  resolve(key: string): Promise<unknown>;
  /** An expression written at `path` below the directive, with `input` (a row) as its input instead of the scope, under the same bounds. */
  rowExpression(path: string, text: string, input: unknown): Promise<unknown>;
  /** Fails the evaluation (ExpressionError at the member's path). */
  fail(key: string, reason: string): never;
}

export interface Directive {
  /** The `$`-keys that spell it: an object with exactly these keys is this directive. */
  readonly keys: readonly string[];
  /** How messages list it (`$rows with $pipe`); its keys joined by default. */
  readonly label?: string;
  check(use: DirectiveCheck): void;
  evaluate(use: DirectiveRun): Promise<unknown>;
}

const shapeOf = (keys: readonly string[]) => [...keys].sort().join(",");

/** `a`, `a or b`, `a, b, or c`. */
function alternatives(items: string[]): string {
  if (items.length <= 2) return items.join(" or ");
  return `${items.slice(0, -1).join(", ")}, or ${items.at(-1)}`;
}

export class DirectiveRegistry {
  private readonly byShape = new Map<string, Directive>();
  private readonly keys = new Set<string>();
  /** The registered directives as messages list them. */
  readonly description: string;

  constructor(readonly directives: readonly Directive[]) {
    for (const directive of directives) {
      const shape = shapeOf(directive.keys);
      if (directive.keys.length === 0 || directive.keys.some((key) => !key.startsWith("$")))
        throw new Error(`a directive is spelled by $-keys, not ${JSON.stringify(directive.keys)}`);
      if (this.byShape.has(shape)) throw new Error(`the directive ${shape} is registered twice`);
      this.byShape.set(shape, directive);
      for (const key of directive.keys) this.keys.add(key);
    }
    this.description = alternatives(directives.map((d) => d.label ?? d.keys.join(" with ")));
  }

  /** A registry holding these directives and `more` (a caller's producers). */
  with(...more: Directive[]): DirectiveRegistry {
    return new DirectiveRegistry([...this.directives, ...more]);
  }

  /** The directive an object spells, undefined for a plain object; throws ExpressionSyntaxError for a malformed one. */
  match(value: Record<string, unknown>, path: string): Directive | undefined {
    const keys = Object.keys(value);
    const dollar = keys.filter((key) => key.startsWith("$"));
    if (dollar.length === 0) return undefined;
    const directive = this.byShape.get(shapeOf(keys));
    if (directive) return directive;
    const unknown = dollar.find((key) => !this.keys.has(key));
    const reason = unknown
      ? `${JSON.stringify(unknown)} is not a directive (directives: ${this.description}; wrap data with $-keys in {"$literal": ...})`
      : `an object with ${dollar.map((key) => JSON.stringify(key)).join(", ")} must hold exactly ${this.description}`;
    throw new ExpressionSyntaxError(at(path, reason));
  }
}

export const at = (path: string, message: string) => (path ? `${path}: ${message}` : message);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** `path.key`, or `path["key"]` for a key that is not an identifier. */
export const member = (path: string, key: string) => (!IDENTIFIER.test(key) ? `${path}[${JSON.stringify(key)}]` : path ? `${path}.${key}` : key);
export const item = (path: string, index: number) => `${path}[${index}]`;

/** A member that must hold expression text. */
export function expressionText(use: DirectiveUse, key: string): string {
  const text = use.value[key];
  if (typeof text !== "string") throw new ExpressionSyntaxError(at(member(use.path, key), "must be a JSONata expression string"));
  return text;
}

export const refuse = (use: DirectiveUse, key: string, reason: string): never => {
  throw new ExpressionSyntaxError(at(member(use.path, key), reason));
};

export const fail = (use: DirectiveUse, key: string, reason: string): never => {
  throw new ExpressionError(at(member(use.path, key), reason));
};
