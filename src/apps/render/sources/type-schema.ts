// `$typeSchema`: the options of an enum, `{ value, label }` per value in the
// schema's order (the label is the value). `{ entityType, attribute }` reads
// an attribute (dotted) of an entity type's schema; `{ schema, path }` a
// property (dotted) of a registered schema's latest version. Each is read as
// its REST route reads it, with the app user's permission.
import { refusedUnless } from "../../../access/confined-services";
import { requireType } from "../../../entity/entity-types/store";
import { schemasAt } from "../../../entity/schema-paths";
import { ApiError } from "../../../lib/errors";
import { resolveSchemaName } from "../../../schema/registry";
import type { Fetched, Obj, Prepared, SourceRun } from "./run";
import { isObject } from "../../../lib/is-object";

const isText = (value: unknown): value is string => typeof value === "string" && value !== "";

/** The enum of the first schema at `path` that has one (its own, or its items' for an array of enum values). */
function enumAt(schema: unknown, path: string): unknown[] | undefined {
  const verdict = schemasAt(schema, path.split("."), "object");
  if ("forbidden" in verdict) return undefined;
  for (const node of verdict.schemas) {
    if (Array.isArray(node.enum)) return node.enum;
    if (isObject(node.items) && Array.isArray(node.items.enum)) return node.items.enum;
  }
  return undefined;
}

export async function prepareTypeSchema(run: SourceRun, source: Obj, scope: Obj): Promise<Prepared> {
  const resolved = await run.resolve(source.$typeSchema, scope);
  const spec = isObject(resolved) ? resolved : {};
  const byType = isText(spec.entityType) && isText(spec.attribute);
  const bySchema = isText(spec.schema) && isText(spec.path);
  if (byType === bySchema)
    throw new ApiError("UNPROCESSABLE_ENTITY", `The $typeSchema of data source ${run.name} must be { entityType, attribute } or { schema, path }`);
  const [name, path] = byType ? [spec.entityType as string, spec.attribute as string] : [spec.schema as string, spec.path as string];
  return {
    key: JSON.stringify({ $typeSchema: byType ? { entityType: name, attribute: path } : { schema: name, path } }),
    async fetch(): Promise<Fetched> {
      const { services } = run.env;
      const refused = refusedUnless(services, [byType ? "entity_type:read" : "schema:read"]);
      if (refused) throw ApiError.of(refused.error);
      const schema = await services.tenant.tx(async (sql) => (byType ? (await requireType(sql, { type_name: name })).schema : resolveSchemaName(sql, name)));
      const values = enumAt(schema, path);
      if (!values)
        throw new ApiError("UNPROCESSABLE_ENTITY", `${byType ? "Entity type" : "Schema"} ${name} has no enum at ${path}`, {
          [byType ? "entity_type" : "schema"]: name,
          path,
        });
      return { rows: values.map((value) => ({ value, label: value })) };
    },
  };
}
