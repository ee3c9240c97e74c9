// The directives every smart value understands, registered like any other:
//   { "$jsonata": "expr" }               the expression's raw value
//   { "$literal": x }                    x exactly as written, never resolved
//   { "$rows": <smart value>, "$pipe": "expr" | [steps] }
//                                        the rows (an array), reshaped by the expression (which reads
//                                        them as `$rows`) or by the steps of ./pipe.ts
import { checkPipe, checkPipeShape, runPipe, type PipeJoin } from "./pipe";
import { DirectiveRegistry, type Directive } from "./registry";

const jsonata: Directive = {
  keys: ["$jsonata"],
  check: (use) => use.expression("$jsonata"),
  evaluate: (use) => use.expression("$jsonata"),
};

const literal: Directive = {
  keys: ["$literal"],
  check: () => undefined,
  evaluate: async (use) => use.value.$literal,
};

/** `$rows` with `$pipe`; `join` reads another data source for a `leftJoin` step (without it such a step is refused). */
function rows(join?: PipeJoin): Directive {
  return {
    keys: ["$rows", "$pipe"],
    check(use) {
      use.smartValue("$rows");
      checkPipe(use, join !== undefined);
    },
    async evaluate(use) {
      // A malformed `$pipe` is refused before any work on the rows.
      checkPipeShape(use, join !== undefined);
      const found = await use.resolve("$rows");
      if (!Array.isArray(found)) return use.fail("$rows", `must give an array, got ${found === undefined ? "nothing" : JSON.stringify(found).slice(0, 60)}`);
      return runPipe(use, found, join);
    },
  };
}

/**
 * The built-in directives, with `join` giving `$pipe`'s `leftJoin` steps the
 * rows of another data source (an app page's sources); without it, as in a
 * workflow, a `leftJoin` step is refused.
 */
export function smartValueDirectives(join?: PipeJoin): DirectiveRegistry {
  return new DirectiveRegistry([jsonata, literal, rows(join)]);
}

/** The registry smart values resolve through unless a caller passes its own (`SMART_VALUE_DIRECTIVES.with(...)`). */
export const SMART_VALUE_DIRECTIVES = smartValueDirectives();
