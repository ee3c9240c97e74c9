// Contracts of any document kind: one contract each for input and output,
// embedded (`inputSchema`) or named (`inputSchemaName`), and an embedded
// schema must be usable as every stored schema must (schema/schema-check.ts).
import { schemaProblems } from "../../schema/schema-check";
import { child, has, type Collector, type Obj } from "./collector";
import { isObject } from "../../lib/is-object";

/** The input and output contracts of `owner`. */
export function checkContracts(found: Collector, owner: Obj, path: string): void {
  for (const side of ["input", "output"]) {
    const embedded = `${side}Schema`;
    const named = `${side}SchemaName`;
    if (has(owner, embedded) && has(owner, named))
      found.add(child(path, named), "contract_conflict", `cannot be set together with ${embedded}; use one form for the ${side} contract`);
    const schema = owner[embedded];
    if (!isObject(schema) && typeof schema !== "boolean") continue;
    for (const line of schemaProblems(schema, child(path, embedded))) found.addLine(line, "contract_schema_invalid");
  }
}
