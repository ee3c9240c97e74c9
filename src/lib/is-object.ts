// The one test for a JSON object (not null, not an array) that every reader of
// a document, a config, a body or a resolved value narrows with before it
// reads keys: `typeof` alone lets null and arrays through.

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
