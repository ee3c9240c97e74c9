// Reading request bodies and query strings: parse, guard, then validate against the route's schema.
import type { Context } from "hono";
import { ApiError } from "./errors";
import { guardJson } from "./input-guard";
import { validate, type JsonSchema } from "./validate";

export async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  // Hono keeps the text for later readers; with a 32 MiB upsert body that copy
  // would sit beside the parsed rows for the whole request, so let it go.
  delete c.req.bodyCache.text;
  if (text.trim() === "") throw new ApiError("BAD_REQUEST", "Request body must be a JSON document");
  return parseJsonBody(text);
}

/** A body's text as JSON: 400 BAD_REQUEST when it is not JSON, 422 for what the service cannot store (input-guard). */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // V8 quotes the text around an unexpected token ("Unexpected token 'x', ..."ab x"... is not valid JSON"),
    // and a body may carry a secret's value, so that form is cut to its first words.
    const reason = (e as Error).message.endsWith("is not valid JSON") ? "Unexpected token" : (e as Error).message;
    throw new ApiError("BAD_REQUEST", "Request body is not valid JSON", { reason });
  }
  guardJson(value, { source: text });
  return value;
}

/** A form-encoded body as a flat object of strings (OAuth2 token requests arrive this way). */
async function readForm(c: Context): Promise<Record<string, string>> {
  const form = Object.fromEntries(new URLSearchParams(await c.req.text()));
  guardJson(form);
  return form;
}

export async function jsonBody<T>(c: Context, schema: JsonSchema, acceptForm = false): Promise<T> {
  const form = acceptForm && /^application\/x-www-form-urlencoded\b/i.test(c.req.header("Content-Type") ?? "");
  return validate<T>(schema, form ? await readForm(c) : await readJson(c));
}

/** A body the route lets the caller leave out: nothing sent reads as `{}`, which the schema then checks. */
export async function optionalJsonBody<T>(c: Context, schema: JsonSchema): Promise<T> {
  if (!c.req.raw.body || c.req.header("Content-Length") === "0") return validate<T>(schema, {});
  return jsonBody<T>(c, schema);
}

type PropSchema = { type?: string | string[]; items?: PropSchema };

/**
 * Query strings are text; coerce each parameter to the type its schema
 * declares (integers, booleans, comma-separated or repeated arrays) before validating.
 */
export function queryParams<T>(c: Context, schema: JsonSchema & { properties?: Record<string, PropSchema> }): T {
  const url = new URL(c.req.url);
  const out: Record<string, unknown> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    const prop = schema.properties?.[key];
    const type = Array.isArray(prop?.type) ? prop?.type[0] : prop?.type;
    if (type === "array") {
      const items = values
        .flatMap((v) => v.split(","))
        .map((v) => v.trim())
        .filter((v) => v !== "");
      out[key] = items.map((v) => coerce(v, prop?.items?.type));
    } else {
      out[key] = coerce(values[values.length - 1], type);
    }
  }
  guardJson(out, { message: "Query parameters failed validation" });
  return validate<T>(schema, out, "Query parameters failed validation");
}

function coerce(value: string, type: string | string[] | undefined): unknown {
  const t = Array.isArray(type) ? type[0] : type;
  if ((t === "integer" || t === "number") && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (t === "boolean" && (value === "true" || value === "false")) return value === "true";
  return value;
}
