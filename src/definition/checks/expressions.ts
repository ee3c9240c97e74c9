// The expressions of a document, collected field by field as the checks walk
// it (bare expression fields, and every expression of a smart value as the
// directive registry declares them), then compiled together: a syntax error,
// a read of `secrets` and a read outside the field's scope are refused.
import {
  compileExpression,
  ExpressionSyntaxError,
  expressionsIn,
  refusedFunctionsOf,
  rootNamesOf,
  SMART_VALUE_DIRECTIVES,
  type DirectiveRegistry,
} from "../../lib/smart-values";
import { child, type Collector, type IssueCode, type Obj } from "./collector";
import { SECRET_TEXT } from "./secrets";

/** The scope names a field may read (`context`, or a path under a name: `config.env`), and how a read outside them is reported. */
export interface ReadScope {
  reads: readonly string[];
  code: IssueCode;
  explanation: string;
}

/** `a`, `a and b`, `a, b and c`. */
export function listed(items: readonly string[]): string {
  return items.length <= 2 ? items.join(" and ") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Whether an expression's read of the root `name` stays within `reads`. The
 * syntax tree gives root names, not paths, so for a path (`config.env`) the
 * text decides: every `config` outside a longer path must go on as `.env`.
 */
function allowed(reads: readonly string[], name: string, text: string): boolean {
  return reads.some((read) => {
    const [root, ...rest] = read.split(".");
    if (root !== name) return false;
    if (!rest.length) return true;
    const tail = rest.map(escaped).join("\\s*\\.\\s*");
    return !new RegExp(`(^|[^\\w$.\`])${escaped(root)}(?!\\s*\\.\\s*${tail}\\b)`).test(text);
  });
}

/** Where an expression sits and, when restricted, what it may read. */
interface Expression {
  path: string;
  text: string;
  scope?: ReadScope;
}

export class Expressions {
  private readonly found: Expression[] = [];

  constructor(
    private readonly problems: Collector,
    /** The directives of the document kind's smart values. */
    private readonly directives: DirectiveRegistry = SMART_VALUE_DIRECTIVES,
  ) {}

  /** A bare expression field (`condition`, `if`): `owner[key]` when it is non-empty text. */
  bare(owner: Obj, key: string, path: string): void {
    const text = owner[key];
    if (typeof text === "string" && text !== "") this.found.push({ path: child(path, key), text });
  }

  /** Every expression of a smart value, with its path; a malformed template or directive is a problem of its own. */
  smartValue(value: unknown, path: string, scope?: ReadScope): void {
    if (value === undefined) return;
    try {
      // A `$pipe` step's expression reads its row, not the field's scope.
      for (const e of expressionsIn(value, path, this.directives))
        this.found.push({ path: e.path, text: e.text, scope: e.input === "row" ? undefined : scope });
    } catch (e) {
      if (!(e instanceof ExpressionSyntaxError)) throw e;
      // The message already names the path.
      this.problems.addLine(e.message, "invalid_expression");
    }
  }

  /** Compiles every expression collected, refusing syntax errors, refused built-ins, secret reads and reads outside a field's scope. */
  check(): void {
    const found = this.problems;
    const analysed = new Map<string, { refused: ReturnType<typeof refusedFunctionsOf>; roots: string[] }>();
    for (const { path, text, scope } of this.found) {
      try {
        compileExpression(text);
      } catch (e) {
        if (!(e instanceof ExpressionSyntaxError)) throw e;
        found.add(path, "invalid_expression", `invalid JSONata expression: ${e.message}${e.position !== undefined ? ` (at character ${e.position})` : ""}`);
        if (SECRET_TEXT.test(`{{${text}`)) found.secret(path);
        continue;
      }
      // A text repeated across a document (every row of a large spec) is analysed once.
      let analysis = analysed.get(text);
      if (!analysis) analysed.set(text, (analysis = { refused: refusedFunctionsOf(text), roots: rootNamesOf(text) }));
      for (const { name, position, reason } of analysis.refused)
        found.add(path, "function_refused", `uses $${name} (at character ${position}), which expressions cannot use: ${reason}`);
      const roots = analysis.roots;
      if (roots.includes("secrets")) found.secret(path);
      if (scope) {
        const outside = roots.filter((name) => name !== "secrets" && !allowed(scope.reads, name, text));
        if (outside.length) found.add(path, scope.code, `reads ${outside.join(", ")}; ${scope.explanation}`);
      }
    }
  }
}
