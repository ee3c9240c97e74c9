// Secret references never sit in a definition, of any kind: a string that
// spells out `{{ secrets.` is refused wherever it is (a `$literal`, an env
// default, a key name); an expression reading `secrets` is refused by the
// expression checks (./expressions.ts).
import { child, type Collector } from "./collector";
import { isObject } from "../../lib/is-object";

/** `{{ secrets.` as written in a string. */
export const SECRET_TEXT = /\{\{\s*secrets\s*[.[]/;

/** Every string of a document that spells out `{{ secrets.`, by path, walking without recursion. */
export function secretTexts(found: Collector, root: unknown, base: string): void {
  const stack: [unknown, string][] = [[root, base]];
  while (stack.length) {
    const [value, path] = stack.pop()!;
    if (typeof value === "string") {
      if (SECRET_TEXT.test(value)) found.secret(path);
    } else if (Array.isArray(value)) value.forEach((v, i) => stack.push([v, child(path, i)]));
    else if (isObject(value)) for (const [k, v] of Object.entries(value)) stack.push([v, child(path, k)]);
  }
}
