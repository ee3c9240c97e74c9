// A spec's `functions` (JSONata function expressions, callable as
// `$<name>(...)` from its other expressions, so a name may not hide a
// built-in) and `messages` (`{{ }}` templates replacing notification text).
import { compileExpression, ExpressionSyntaxError } from "../../lib/smart-values";
import { child, type Obj } from "./collector";
import type { SpecChecks } from "./spec-names";

/** JSONata's built-in functions (jsonata 2.x): a spec function of the same name would shadow one. */
const BUILT_INS = new Set([
  ..."sum count max min average string substring substringBefore substringAfter lowercase uppercase length trim pad match contains replace split join".split(
    " ",
  ),
  ..."formatNumber formatBase formatInteger parseInteger number floor ceil round abs sqrt power random boolean not map zip filter single reduce sift".split(
    " ",
  ),
  ..."keys lookup append exists spread merge reverse each error assert type sort shuffle distinct base64encode base64decode encodeUrlComponent".split(" "),
  ..."encodeUrl decodeUrlComponent decodeUrl eval toMillis fromMillis clone now millis".split(" "),
]);

export function checkFunctions(checks: SpecChecks, functions: Obj, path: string): void {
  for (const [name, text] of Object.entries(functions)) {
    const at = child(path, name);
    if (BUILT_INS.has(name)) checks.found.add(at, "function_name_reserved", `names the JSONata built-in $${name}; choose another name`);
    checks.expressions.bare(functions, name, path);
    if (typeof text !== "string" || text === "") continue;
    let type: string;
    try {
      type = compileExpression(text).ast.type;
    } catch (e) {
      // The syntax error is reported with the spec's other expressions.
      if (e instanceof ExpressionSyntaxError) continue;
      throw e;
    }
    if (type !== "lambda") checks.found.add(at, "invalid_expression", `must be a JSONata function expression, such as function($a, $b) { $a + $b }`);
  }
}

/** `messages.<id>`: templates, compiled with the spec's other expressions. */
export function checkMessages(checks: SpecChecks, messages: Obj, path: string): void {
  for (const [id, message] of Object.entries(messages)) checks.expressions.smartValue(message, child(path, id));
}
