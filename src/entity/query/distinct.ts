// POST /entity/query/distinct (docs/query.md, Distinct values): the distinct values of one
// indexed attribute. Without a filter it walks the attribute's index one
// value at a time (a loose index scan), so the cost follows the number of
// distinct values, not of rows. The values carry no tenant to check:
// test/db/owner-path.test.ts proves they never include another tenant's.
import type { TenantDb } from "../../db/client";
import { validationFailed } from "../../lib/validate";
import { TypeReader } from "../entity-types/cache";
import { confineRow } from "../../db/entity-access";
import { compileFilter, newCompilation, relatedTypeNames } from "./filter";
import { indexedAttribute, operandOf } from "./operands";
import { compiled, Params } from "../../db/params";
import { applyTrigramThreshold, readTypes } from "./service";

export interface DistinctInput {
  type_name: string;
  attribute_name: string;
  filter?: unknown;
  limit?: number;
}

/** The values, and the filter's warnings (paths that name nothing the schema or the caller knows). */
export async function distinctValues(tenant: TenantDb, input: DistinctInput): Promise<{ values: unknown[]; warnings: string[] }> {
  const limit = input.limit ?? 1000;
  return tenant.read(async (reader) => {
    const { root: type, types, scope } = await readTypes(reader, new TypeReader(reader, false), input.type_name, relatedTypeNames(input.filter));
    const path = input.attribute_name.split(".");
    const attr = indexedAttribute(type, path);
    if (!attr) {
      throw validationFailed(
        [`attribute_name: ${input.attribute_name} is not an indexed attribute of ${type.name}`],
        "attribute_name must name an indexed attribute",
      );
    }
    const params = new Params();
    const c = newCompilation(params, scope, (name) => types.get(name));
    const operand = operandOf(["attributes", ...path], type, "e", c, "attribute_name");
    if (operand?.kind !== "indexed") throw validationFailed([`attribute_name: ${input.attribute_name} is not an indexed attribute of ${type.name}`]);
    const confined = confineRow(scope, "e", params, type);
    const base = `e.tenant_id = ${c.tenant} AND e.type_id = ${params.add(type.id, "uuid")} AND e.deleted_at IS NULL${confined ? ` AND ${confined}` : ""}`;
    const n = params.add(limit, "int");
    const x = operand.at.typed(operand.type);

    let text: string;
    if (attr.type === "text_array") {
      const filter = input.filter === undefined ? "TRUE" : compileFilter(input.filter, type, "e", c);
      text = `SELECT DISTINCT v FROM entities e CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(${x}) = 'array' THEN ${x} END) AS v
               WHERE ${base} AND ${filter} ORDER BY v LIMIT ${n}`;
    } else if (input.filter !== undefined) {
      const filter = compileFilter(input.filter, type, "e", c);
      text = `SELECT DISTINCT ${x} AS v FROM entities e WHERE ${base} AND ${x} IS NOT NULL AND ${filter} ORDER BY v LIMIT ${n}`;
    } else {
      text = `WITH RECURSIVE d(v) AS (
                (SELECT ${x} FROM entities e WHERE ${base} AND ${x} IS NOT NULL ORDER BY ${x} LIMIT 1)
                UNION ALL
                SELECT (SELECT ${x} FROM entities e WHERE ${base} AND ${x} > d.v ORDER BY ${x} LIMIT 1) FROM d WHERE d.v IS NOT NULL
              )
              SELECT v FROM d WHERE v IS NOT NULL LIMIT ${n}`;
    }
    await applyTrigramThreshold(reader, c);
    const { rows } = await reader.run<{ v: unknown }>(compiled(text, params.values));
    return { values: rows.map((r) => (attr.type === "numeric" && typeof r.v === "string" ? Number(r.v) : r.v)), warnings: c.warnings };
  });
}
