// Path parameters, checked against the schemas their route declares before
// the handler runs; path ids are UUIDs, refused before touching the database.
import { uuidSchema } from "./schemas";
import { check, validationFailed, type JsonSchema } from "./validate";

const UUID = new RegExp(uuidSchema.pattern);

export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

/** Throws 422 VALIDATION_FAILED with one line per bad parameter; a uuid says so in its own words. */
export function pathParams(schemas: Record<string, JsonSchema | object | boolean>, values: Record<string, string>): void {
  const errors = Object.entries(schemas).flatMap(([name, schema]) => {
    const lines = check(schema as JsonSchema, values[name], name);
    return lines.length && (schema as { pattern?: string }).pattern === uuidSchema.pattern ? [`${name}: must be a UUID`] : lines;
  });
  if (errors.length) throw validationFailed(errors, "Path parameter failed validation");
}
