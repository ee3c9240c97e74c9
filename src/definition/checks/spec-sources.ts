// A page's data sources: each producer's smart values and expressions, a
// `$http` source's auth (a declared profile, or an inline block reading the
// render context, never a hand-set credential beside it), and the `$pipe`
// steps, whose `leftJoin` names another source of the same page.
import { checkRequestAuth, inlineProfileScope } from "./auth-profiles";
import { child, items, type Obj } from "./collector";
import { DOCUMENT_KINDS } from "./kinds";
import type { SpecChecks } from "./spec-names";
import { isObject } from "../../lib/is-object";

/** An inline block on a `$http` source reads what a root profile of the spec reads. */
const HTTP_AUTH_SCOPE = inlineProfileScope(DOCUMENT_KINDS.app.profileReads);

/** `$pipe` as steps (an expression string is a bare field of the source). */
function checkPipe(checks: SpecChecks, pipe: unknown, path: string, sources: Obj): void {
  items(pipe, Infinity).forEach((step, i) => {
    if (!isObject(step)) return;
    const at = child(path, i);
    checks.expressions.bare(step, "map", at);
    checks.expressions.bare(step, "filter", at);
    const join = step.leftJoin;
    if (isObject(join) && typeof join.source === "string" && !Object.hasOwn(sources, join.source)) {
      checks.found.add(
        child(child(at, "leftJoin"), "source"),
        "unknown_data_source",
        `names ${JSON.stringify(join.source)}, which is no source of this page (sources: ${Object.keys(sources).join(", ")})`,
      );
    }
  });
}

/** Every source of one page's `dataSources`. */
export function checkDataSources(checks: SpecChecks, sources: Obj, path: string): void {
  const { found, expressions } = checks;
  for (const [name, source] of Object.entries(sources)) {
    if (!isObject(source)) continue;
    const at = child(path, name);
    for (const producer of ["$query", "$rows", "$typeSchema"]) expressions.smartValue(source[producer], child(at, producer));
    const http = source.$http;
    if (isObject(http)) {
      const httpAt = child(at, "$http");
      for (const [key, value] of Object.entries(http)) if (key !== "auth") expressions.smartValue(value, child(httpAt, key));
      checkRequestAuth(found, http, httpAt, checks.declared, HTTP_AUTH_SCOPE, expressions);
    }
    expressions.bare(source, "$pipe", at);
    checkPipe(checks, source.$pipe, child(at, "$pipe"), sources);
  }
}
