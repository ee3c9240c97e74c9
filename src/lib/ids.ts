// Path ids are UUIDs (SPEC.md 2.1); anything else is refused before touching the database.
import { validationFailed } from "./validate";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

export function pathId(value: string | undefined, name = "id"): string {
  if (!isUuid(value)) throw validationFailed([`${name}: must be a UUID`], "Path parameter failed validation");
  return value;
}
