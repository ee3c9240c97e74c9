// The directives every smart value understands, registered like any other:
//   { "$jsonata": "expr" }               the expression's raw value
//   { "$literal": x }                    x exactly as written, never resolved
//   { "$rows": <smart value>, "$pipe": "expr" }
//                                        the rows (an array), reshaped by expr, which reads them as `$rows`
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

const rows: Directive = {
  keys: ["$rows", "$pipe"],
  check(use) {
    use.smartValue("$rows");
    use.expression("$pipe");
  },
  async evaluate(use) {
    // A `$pipe` that is not expression text is refused before any work on the rows.
    use.text("$pipe");
    const found = await use.resolve("$rows");
    if (!Array.isArray(found)) use.fail("$rows", `must give an array, got ${found === undefined ? "nothing" : JSON.stringify(found).slice(0, 60)}`);
    return use.expression("$pipe", { rows: found });
  },
};

/** The registry smart values resolve through unless a caller passes its own (`SMART_VALUE_DIRECTIVES.with(...)`). */
export const SMART_VALUE_DIRECTIVES = new DirectiveRegistry([jsonata, literal, rows]);
