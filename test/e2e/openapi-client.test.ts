// A generated client can trust GET /openapi.json: openapi-typescript (default
// options) turns the served document into types, the compiler checks a small
// client written against them (openapi-client/client.ts), and the client runs
// against the Worker in workerd; every response it gets must match the schema
// the document gives its status, with no field the document leaves out.
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Validator, type Schema } from "@cfworker/json-schema";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTenant, openPool, useWsProxy } from "../../scripts/lib/db.mjs";
import { freePort } from "../../scripts/lib/postgres.mjs";
import { startWorkerRuntime } from "../../scripts/lib/runtime.mjs";
import { createClient, scenario, type Exchange } from "./openapi-client/client";

const root = fileURLToPath(new URL("../..", import.meta.url));
const clientFile = fileURLToPath(new URL("./openapi-client/client.ts", import.meta.url));
const generatedFile = join(dirname(clientFile), "api.d.ts");
const dataDir = resolve(root, `.data/openapi-client-${process.pid}`);

let worker: { url: string; stop: () => Promise<void> } | undefined;
let pool: ReturnType<typeof openPool> | undefined;
let authorization = "";
let doc: any;
let generated = "";

beforeAll(async () => {
  useWsProxy(inject("wsProxy"));
  pool = openPool(inject("databaseUrl"), 1);
  const tenant = await createTenant(pool, "openapi-client");
  authorization = `Basic ${Buffer.from(`${tenant.client_id}:${tenant.client_secret}`).toString("base64")}`;
  worker = await startWorkerRuntime({
    port: await freePort(),
    dataDir,
    vars: {
      DATABASE_URL: inject("databaseUrl"),
      NEON_WS_PROXY: inject("wsProxy"),
      JWT_SECRET: randomBytes(32).toString("hex"),
      MASTER_KEY: randomBytes(32).toString("hex"),
      LOG_REQUESTS: "false",
      RATE_LIMIT_IP: "1000000",
      RATE_LIMIT_IDENTITY: "1000000",
    },
  });
  doc = await (await fetch(`${worker.url}/openapi.json`)).json();
  generated = astToString(await openapiTS(doc));
});

afterAll(async () => {
  await worker?.stop();
  await pool?.end();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The compiler's complaints about `files` (path → text; a path not given is read from disk), as `name:line TScode message`. */
function typeErrors(files: Record<string, string>): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => f in files || fileExists(f);
  host.readFile = (f) => files[f] ?? readFile(f);
  host.getSourceFile = (f, language, ...rest) => (f in files ? ts.createSourceFile(f, files[f], language) : getSourceFile(f, language, ...rest));
  const program = ts.createProgram({ rootNames: Object.keys(files).filter((f) => !f.endsWith(".d.ts")), options, host });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file ? `:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : "";
    return `${d.file ? d.file.fileName.split("/").pop() : ""}${line} TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
}

/** `$ref`s to components replaced by what they name (the document's components do not refer to themselves). */
function resolveRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(resolveRefs);
  if (node === null || typeof node !== "object") return node;
  const ref = (node as { $ref?: string }).$ref;
  if (ref)
    return resolveRefs(
      ref
        .split("/")
        .slice(1)
        .reduce((at: any, key) => at[key], doc),
    );
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolveRefs(v)]));
}

/** Every object that lists its properties and says nothing more is closed, so a field the document does not name fails. */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (node === null || typeof node !== "object") return node;
  const out = Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, k === "properties" ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, closed(s)])) : closed(v)]),
  );
  return "properties" in out && !("additionalProperties" in out) ? { ...out, additionalProperties: false } : out;
}

/** What is wrong with a response, judged by the document: no schema for its status and type, or errors against that schema. */
function mismatches(e: Exchange): string[] {
  const response = doc.paths[e.path]?.[e.method]?.responses?.[e.status];
  if (!response) return [`${e.status} is not declared`];
  const mediaType = (e.contentType ?? "").split(";")[0].trim();
  const schema = response.content?.[mediaType]?.schema;
  if (!schema) return [`${e.status} declares no ${mediaType} schema`];
  const result = new Validator(closed(resolveRefs(schema)) as Schema, "2020-12", false).validate(e.body);
  return result.errors.map((err) => `${err.instanceLocation} ${err.error}`);
}

/** Every schema object under `node`, with where it is. */
function* schemas(node: unknown, at: string): Generator<[string, any]> {
  if (node === null || typeof node !== "object") return;
  if ("type" in node || "properties" in node) yield [at, node];
  // An example is data (a registered schema's example holds a JSON Schema of the tenant's), not the document's schema.
  for (const [k, v] of Object.entries(node)) if (k !== "example") yield* schemas(v, `${at}/${k}`);
}

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
  );

describe("the document GET /openapi.json serves", () => {
  it("gives every answer a schema: the error envelope for every status from 400 (the upload route's provider body there), a body for every success", () => {
    // The one route a provider's upload widget posts to answers its failures in the provider's own body.
    const ownErrorBody = new Set(["POST /apps/upload/{integrationId}/{uploadId}"]);
    const problems = operations().flatMap(({ key, op }) =>
      Object.entries(op.responses as Record<string, any>).flatMap(([status, res]) => {
        const content = Object.entries(res.content ?? {}) as [string, any][];
        if (Number(status) >= 400) {
          const schema = content.length === 1 && content[0][0] === "application/json" ? content[0][1].schema : undefined;
          const fits = ownErrorBody.has(key) ? schema?.required?.includes("errorMessage") : schema?.$ref === "#/components/schemas/Error";
          return fits ? [] : [`${key} ${status}`];
        }
        return content.length && content.every(([, c]) => c.schema) ? [] : [`${key} ${status}`];
      }),
    );
    expect(problems).toEqual([]);
    expect(doc.paths["/openapi.json"].get).toMatchObject({
      security: [],
      responses: { 200: { content: { "application/json": { schema: { required: ["openapi", "info", "servers", "paths", "components"] } } } } },
    });
  });

  it("lists the required fields of every response object and says when an object takes any keys", () => {
    const unlisted = operations().flatMap(({ key, op }) =>
      [...schemas(op.responses, key)].filter(([, s]) => s.properties && !Array.isArray(s.required)).map(([at]) => at),
    );
    expect(unlisted).toEqual([]);
    const open = [...schemas(doc, "#")]
      .filter(([, s]) => [s.type].flat().includes("object") && !s.properties && s.additionalProperties === undefined)
      .map(([at]) => at);
    expect(open).toEqual([]);
  });

  it("describes the bodies that are not JSON and the headers the handlers read", () => {
    const op = (path: string, method: string) => doc.paths[path][method];
    const binary = { type: "string", format: "binary" };
    expect(Object.keys(op("/entity/uploads/{versionId}", "put").requestBody.content)).toEqual(["*/*"]);
    expect(op("/entity/uploads/{versionId}", "put").requestBody.content["*/*"].schema).toMatchObject(binary);
    expect(op("/entity/temp-files", "post").requestBody.content["multipart/form-data"].schema).toMatchObject({
      required: ["file"],
      properties: { file: binary },
    });
    expect(op("/entity/temp-files", "post").requestBody.content["*/*"].schema).toMatchObject(binary);
    expect(op("/entity/temp-files", "post").parameters).toContainEqual(expect.objectContaining({ name: "X-Temp-File-Name", in: "header", required: false }));
    expect(op("/entity/entities/import", "post").requestBody).toMatchObject({ required: true, content: { "text/csv": { schema: { type: "string" } } } });
    expect(op("/entity/entities/import", "post").parameters).toContainEqual(expect.objectContaining({ name: "X-Import-Config", in: "header", required: true }));
    // Each media type carries its schema and an example of it.
    const schemasOf = (content: Record<string, { schema: unknown }>) => Object.fromEntries(Object.entries(content).map(([type, c]) => [type, c.schema]));
    expect(schemasOf(op("/entity/entities/export", "post").responses[200].content)).toEqual({ "text/csv": { type: "string" } });
    expect(schemasOf(op("/entity/temp-files/{id}", "get").responses[200].content)).toEqual({ "application/octet-stream": binary });
    expect(op("/entity/entities/{id}", "delete").responses[200].content["application/json"].schema.properties.data.required).toEqual([
      "id",
      "deleted",
      "deleted_at",
    ]);
    expect(op("/access/api-tokens/{id}", "delete").responses[200].content["application/json"].schema.properties.data.required).toEqual([
      "id",
      "revoked",
      "revoked_at",
    ]);
  });
});

describe("a client generated from GET /openapi.json", () => {
  it("type-checks against the generated types, which are exact enough to refuse misuse", () => {
    expect(generated).toContain('"/entity/entities/{id}": {');
    expect(typeErrors({ [generatedFile]: generated, [clientFile]: ts.sys.readFile(clientFile)! })).toEqual([]);

    const probe = join(dirname(clientFile), "probe.ts");
    const misuse = [
      'import type { paths } from "./api";',
      'type Entity = paths["/entity/entities/{id}"]["get"]["responses"][200]["content"]["application/json"]["data"];',
      "declare const entity: Entity;",
      "export const deletedAt: string = entity.deleted_at;",
      "export const typo = entity.nmae;",
      'export const code: number = ({} as paths["/entity/query"]["post"]["responses"][404]["content"]["application/json"]).error.code;',
    ].join("\n");
    // First lines only: the rest spells out whole generated types.
    expect(typeErrors({ [generatedFile]: generated, [probe]: misuse }).map((e) => e.split("\n")[0].replace(/ on type .*$/, ""))).toEqual([
      "probe.ts:4 TS2322 Type 'string | null' is not assignable to type 'string'.",
      "probe.ts:5 TS2339 Property 'nmae' does not exist",
      "probe.ts:6 TS2322 Type 'string' is not assignable to type 'number'.",
    ]);
  });

  it("creates a type, upserts, pages a query by cursor and reads by id, every response as the document says", async () => {
    const exchanges: Exchange[] = [];
    const client = createClient(worker!.url, authorization, (e) => exchanges.push(e));
    const skus = ["a", "b", "c", "d", "e"];
    const outcome = await scenario(client, "Gadget", skus, 2);

    expect(outcome.openapi).toBe("3.1.0");
    expect(outcome.type).toMatchObject({ status: "active", identifierKey: ["sku"] });
    expect(outcome.counts).toEqual({ created: 5, updated: 0 });
    // Prices fall from a (50) to e (10); ascending by price is e..a, two per page.
    expect(outcome.pages).toEqual([["e", "d"], ["c", "b"], ["a"]]);
    expect(outcome.read.map((r) => [r.name, r.type, r.price, r.deletedAt])).toEqual(skus.map((sku, i) => [`Item ${sku}`, "Gadget", 10 * (5 - i), null]));
    expect(outcome.missing).toEqual({ status: 404, code: "NOT_FOUND" });

    expect(exchanges.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      "get /openapi.json 200",
      "post /entity/entity-types 201",
      "post /entity/entities/upsert 200",
      "post /entity/query 200",
      "post /entity/query 200",
      "post /entity/query 200",
      ...skus.map(() => "get /entity/entities/{id} 200"),
      "get /entity/entities/{id} 404",
    ]);
    expect(exchanges.flatMap((e) => mismatches(e).map((m) => `${e.method} ${e.path} ${e.status}: ${m}`))).toEqual([]);
  });
});
