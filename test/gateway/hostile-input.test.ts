// Input the service cannot store (NUL, unpaired surrogates, trees nested
// thousands deep, numbers that overflow or underflow a double) is refused
// where it enters, with a 4xx envelope and nothing written, on every path
// that reads it: JSON bodies, upsert rows, query strings, path parameters,
// headers, CSV cells and credentials.
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, basic, call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { createEntity, createType } from "../support/entities";

const schema = {
  type: "object",
  required: ["sku"],
  properties: {
    sku: { type: "string" },
    title: { type: "string" },
    price: { type: "number" },
    tags: { type: "array" },
    meta: { type: "object" },
  },
};

let t: TenantCreds;
let existing: { id: string };

beforeAll(async () => {
  t = await createTenant();
  await createType(t.auth, { name: "Product", schema, config: { identifier_key: ["sku"] } });
  const rule = await call("POST", "/entity/relationship-rules", {
    auth: t.auth,
    body: { name: "related", from_entity_type_name: "Product", to_entity_type_name: "Product" },
  });
  expect(rule.status).toBe(201);
  existing = await createEntity(t.auth, "Product", "Existing", { sku: "E-1", title: "kept" });
});

/** Everything a tenant's writes could change, as one comparable value. */
async function footprint(tenantId: string) {
  const [row] = await systemQuery(
    `SELECT (SELECT count(*) FROM entity_types WHERE tenant_id = $1) AS types,
            (SELECT count(*) FROM relationship_rules WHERE tenant_id = $1) AS rules,
            (SELECT count(*) FROM roles WHERE tenant_id = $1) AS roles,
            (SELECT count(*) FROM api_tokens WHERE tenant_id = $1) AS tokens,
            (SELECT count(*) FROM schemas WHERE tenant_id = $1) AS schemas,
            (SELECT count(*) FROM temp_files WHERE tenant_id = $1) AS temp_files,
            (SELECT count(*) FROM events WHERE tenant_id = $1) AS events,
            (SELECT string_agg(id || ' ' || name || ' ' || attributes::text || ' ' || updated_at, ';' ORDER BY id) FROM entities WHERE tenant_id = $1) AS entities`,
    [tenantId],
  );
  return row;
}

/** Runs `send`, expects the envelope with `status` and `line` among its lines, and that nothing changed. */
async function refused(send: () => Promise<{ status: number; json: any }>, line: string | RegExp, status = 422, code = "VALIDATION_FAILED") {
  const before = await footprint(t.tenantId);
  const res = await send();
  const err = expectError(res, status, code);
  if (status === 422) expect(err.details.validation_errors).toContainEqual(typeof line === "string" ? line : expect.stringMatching(line));
  expect(await footprint(t.tenantId)).toEqual(before);
  return err;
}

const post =
  (path: string, body: unknown, auth: string | null = t.auth) =>
  () =>
    call("POST", path, { auth, body });
const raw = (method: string, path: string, text: string) => () =>
  call(method, path, { auth: t.auth, rawBody: text, headers: { "Content-Type": "application/json" } });

async function importCsv(csv: string, config: Record<string, unknown> = { entity_type_name: "Product" }) {
  const headers = { Authorization: t.auth, "Content-Type": "text/csv", "X-Import-Config": encodeURIComponent(JSON.stringify(config)) };
  const res = await SELF.fetch(`${BASE}/entity/entities/import`, { method: "POST", headers, body: csv });
  return { status: res.status, json: await res.json<any>() };
}

const NOT_TEXT = "must not contain NUL characters or unpaired surrogates";

describe.each([
  ["NUL", "\u0000", String.raw`\u0000`],
  ["a lone surrogate", "\ud800", String.raw`\ud800`],
])("%s in a JSON body answers 422 naming the path, and writes nothing", (_label, bad, escaped) => {
  it("entity names, attribute values and attribute keys (create, PUT, PATCH, upsert)", async () => {
    await refused(post("/entity/entities", { type_name: "Product", name: `n${bad}`, attributes: { sku: "N-1" } }), `name: ${NOT_TEXT}`);
    await refused(post("/entity/entities", { type_name: "Product", name: "n", attributes: { sku: "N-1", title: `t${bad}` } }), `attributes.title: ${NOT_TEXT}`);
    await refused(
      post("/entity/entities", { type_name: "Product", name: "n", attributes: { sku: "N-1", meta: { [`na${bad}me`]: 1 } } }),
      `attributes.meta["na${escaped}me"]: is a key with NUL characters or unpaired surrogates`,
    );
    await refused(
      () => call("PUT", `/entity/entities/${existing.id}`, { auth: t.auth, body: { attributes: { sku: "E-1", tags: ["ok", bad] } } }),
      `attributes.tags[1]: ${NOT_TEXT}`,
    );
    await refused(
      () => call("PATCH", `/entity/entities/${existing.id}/attributes`, { auth: t.auth, body: { attributes: { title: bad } } }),
      `attributes.title: ${NOT_TEXT}`,
    );
    await refused(
      post("/entity/entities/upsert", {
        type_name: "Product",
        data: [
          { name: "fine", attributes: { sku: "U-1" } },
          { name: "bad", attributes: { sku: `U-2${bad}` } },
        ],
      }),
      `data[1].attributes.sku: ${NOT_TEXT}`,
    );
  });

  it("rule names, type paths, role, token and schema names", async () => {
    await refused(
      post("/entity/relationship-rules", { name: `r${bad}`, from_entity_type_name: "Product", to_entity_type_name: "Product" }),
      `name: ${NOT_TEXT}`,
    );
    await refused(
      post("/entity/entity-types", { name: "Other", schema: { type: "object" }, config: { identifier_key: [`k${bad}`] } }),
      `config.identifier_key[0]: ${NOT_TEXT}`,
    );
    await refused(
      post("/entity/entity-types", {
        name: "Other",
        schema: { type: "object" },
        config: { identifier_key: ["k"], indexed_attributes: [{ path: [`p${bad}`], type: "text" }] },
      }),
      `config.indexed_attributes[0].path[0]: ${NOT_TEXT}`,
    );
    await refused(post("/access/roles", { name: `role${bad}`, permissions: [] }), `name: ${NOT_TEXT}`);
    await refused(post("/access/api-tokens", { name: `token${bad}` }), `name: ${NOT_TEXT}`);
    await refused(post("/schema/schemas", { name: `s${bad}`, schema: { type: "object" } }), `name: ${NOT_TEXT}`);
  });

  it("filter paths, sort, distinct_on, include rule names and GraphQL variables", async () => {
    const filter = { operator: "eq", path: ["attributes", `a${bad}`], value: "x" };
    await refused(post("/entity/query", { type_name: "Product", filter }), `filter.path[1]: ${NOT_TEXT}`);
    await refused(post("/entity/query", { type_name: "Product", sort: [{ path: ["attributes", bad] }] }), `sort[0].path[1]: ${NOT_TEXT}`);
    await refused(post("/entity/query", { type_name: "Product", distinct_on: { paths: [["attributes", bad]] } }), `distinct_on.paths[0][1]: ${NOT_TEXT}`);
    await refused(
      post("/entity/query", { type_name: "Product", include_specs: [{ type_name: "Product", rule_name: bad }] }),
      `include_specs[0].rule_name: ${NOT_TEXT}`,
    );
    await refused(
      post("/entity/query-graph", { type_name: "Product", include: [{ type_name: "Product", rule_name: `r${bad}` }] }),
      `include[0].rule_name: ${NOT_TEXT}`,
    );
    await refused(post("/entity/entities/export", { type_name: "Product", columns: [`c${bad}`] }), `columns[0]: ${NOT_TEXT}`);
    await refused(post("/entity/graphql", { query: "query($x: String) { __typename }", variables: { x: bad } }), `variables.x: ${NOT_TEXT}`);
  });

  it("POST /auth/token before any login", async () => {
    await refused(
      post("/auth/token", { grant_type: "client_credentials", client_id: `${t.clientId}${bad}`, client_secret: t.clientSecret }, null),
      `client_id: ${NOT_TEXT}`,
    );
  });

  it("include_specs in a query string, and a CSV cell holding JSON", async () => {
    const specs = encodeURIComponent(`[{"type_name":"Product","rule_name":"${escaped}"}]`);
    await refused(() => call("GET", `/entity/entities?type_name=Product&include_specs=${specs}`, { auth: t.auth }), `include_specs[0].rule_name: ${NOT_TEXT}`);
    await refused(() => importCsv(`name,sku,tags\nA,I-1,"[""${escaped}""]"\n`), `line 2, column "tags" at [0]: ${NOT_TEXT}`);
  });
});

describe("NUL outside JSON bodies answers 4xx and writes nothing", () => {
  it("query strings and path parameters", async () => {
    await refused(() => call("GET", "/event/events?type_name=%00", { auth: t.auth }), `type_name: ${NOT_TEXT}`);
    await refused(() => call("GET", "/entity/entity-types?name=a%00b", { auth: t.auth }), `name: ${NOT_TEXT}`);
    await refused(() => call("GET", "/entity/relationship-rules?name=%00", { auth: t.auth }), `name: ${NOT_TEXT}`);
    await refused(() => call("GET", "/schema/schemas/a%00", { auth: t.auth }), `idOrName: ${NOT_TEXT}`);
  });

  it("CSV cells and header names, and X-Import-Config", async () => {
    await refused(() => importCsv("name,sku\nA\u0000,I-1\n"), `line 2, column "name": ${NOT_TEXT}`);
    await refused(() => importCsv("name,sku,title\nA,I-1,fine\nB,I-2,t\u0000\n"), `line 3, column "title": ${NOT_TEXT}`);
    await refused(
      () => importCsv("name,sku,ti\u0000tle\nA,I-1,x\n", { entity_type_name: "Product", column_mapping: { name: "name", sku: "sku" } }),
      `line 1, column 3: ${NOT_TEXT}`,
    );
    await refused(
      () => importCsv("name,sku\nA,I-1\n", { entity_type_name: "Product", column_mapping: { name: "name", sku: "s\u0000ku" } }),
      `X-Import-Config.column_mapping.sku: ${NOT_TEXT}`,
    );
  });

  it("X-Temp-File-Name", async () => {
    await refused(
      () => call("POST", "/entity/temp-files", { auth: t.auth, rawBody: "bytes", headers: { "Content-Type": "text/plain", "X-Temp-File-Name": "a%00b.txt" } }),
      /^name: /,
    );
  });

  it("Basic credentials and a form-encoded token request, before any login", async () => {
    const basicErr = await refused(
      () => call("GET", "/access/me/permissions", { auth: basic(`${t.clientId}\u0000`, t.clientSecret) }),
      "",
      401,
      "UNAUTHORIZED",
    );
    expect(basicErr.message).toBe("Malformed Basic credentials");
    await refused(
      () =>
        call("POST", "/auth/token", {
          rawBody: `grant_type=client_credentials&client_id=${t.clientId}%00&client_secret=${t.clientSecret}`,
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
        }),
      `client_id: ${NOT_TEXT}`,
    );
  });
});

describe("numbers a double cannot hold answer 422 naming the path, and write nothing", () => {
  it("1e400 and 1e-400 on create, PATCH, PUT and upsert", async () => {
    await refused(
      raw("POST", "/entity/entities", '{"type_name":"Product","name":"n","attributes":{"sku":"X-1","price":1e400}}'),
      "attributes.price: is a number too large to store",
    );
    await refused(
      raw("POST", "/entity/entities", '{"type_name":"Product","name":"n","attributes":{"sku":"X-1","price":1e-400}}'),
      "attributes.price: is a number too small to store (it would become 0)",
    );
    await refused(
      raw("PATCH", `/entity/entities/${existing.id}/attributes`, '{"attributes":{"price":-1e400}}'),
      "attributes.price: is a number too large to store",
    );
    await refused(
      raw("PUT", `/entity/entities/${existing.id}`, '{"attributes":{"sku":"E-1","tags":[0, 2.5e-999]}}'),
      "attributes.tags[1]: is a number too small to store (it would become 0)",
    );
    await refused(
      raw(
        "POST",
        "/entity/entities/upsert",
        '{"type_name":"Product","data":[{"name":"a","attributes":{"sku":"X-1","price":0}},{"name":"b","attributes":{"sku":"X-2","price":1e-400}}]}',
      ),
      "data[1].attributes.price: is a number too small to store (it would become 0)",
    );
    await refused(
      raw("POST", "/entity/entities/upsert", '{"type_name":"Product","data":[{"name":"b","attributes":{"sku":"X-2","meta":{"m":1e999}}}]}'),
      "data[0].attributes.meta.m: is a number too large to store",
    );
  });

  it("a CSV number cell and JSON cell", async () => {
    await refused(() => importCsv("name,sku,price\nA,I-1,1e-400\n"), `line 2, column "price": is a number too small to store (it would become 0)`);
    await refused(() => importCsv('name,sku,meta\nA,I-1,"{""w"":1e400}"\n'), `line 2, column "meta" at w: is a number too large to store`);
  });

  it("keeps zeros and small numbers that survive, exactly", async () => {
    const res = await raw(
      "POST",
      "/entity/entities",
      '{"type_name":"Product","name":"tiny","attributes":{"sku":"T-1","price":1e-300,"tags":[0,0.0,-0,0e5]}}',
    )();
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.data.attributes).toEqual({ sku: "T-1", price: 1e-300, tags: [0, 0, 0, 0] });
  });
});

describe("an attribute tree 10,000 deep", () => {
  const deep = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);
  const TOO_DEEP = /^attributes\.meta(\.a)+…?: nests deeper than 128 levels of arrays and objects$/;

  it("is 422 on create, PUT, PATCH, upsert and import with nothing written, and the tenant still reads", async () => {
    const tree = deep(10_000);
    await refused(raw("POST", "/entity/entities", `{"type_name":"Product","name":"deep","attributes":{"sku":"D-1","meta":${tree}}}`), TOO_DEEP);
    await refused(raw("PUT", `/entity/entities/${existing.id}`, `{"attributes":{"sku":"E-1","meta":${tree}}}`), TOO_DEEP);
    await refused(raw("PATCH", `/entity/entities/${existing.id}/attributes`, `{"attributes":{"meta":${tree}}}`), TOO_DEEP);
    await refused(
      raw("POST", "/entity/entities/upsert", `{"type_name":"Product","data":[{"name":"deep","attributes":{"sku":"D-1","meta":${tree}}}]}`),
      /^data\[0\]\.attributes\.meta(\.a)+…?: nests deeper than 128 levels/,
    );
    const cell = "[".repeat(10_000) + "]".repeat(10_000);
    await refused(() => importCsv(`name,sku,tags\nA,D-1,${cell}\n`), /^line 2, column "tags" at (\[0\])+…?: nests deeper than 128 levels/);
    expect(await systemQuery("SELECT count(*)::int AS n FROM entities WHERE tenant_id = $1 AND name = 'deep'", [t.tenantId])).toEqual([{ n: 0 }]);

    for (const [method, path, body] of [
      ["GET", "/entity/entities?type_name=Product", undefined],
      ["GET", `/entity/entities/${existing.id}`, undefined],
      ["POST", "/entity/query-graph", { type_name: "Product" }],
      ["POST", "/entity/graphql", { query: "{ __typename }" }],
      ["GET", "/event/events", undefined],
    ] as const) {
      const res = await call(method, path, { auth: t.auth, body });
      expect(res.status, `${method} ${path}: ${res.text.slice(0, 200)}`).toBe(200);
    }
  });

  it("stops at 128 levels: a document exactly that deep is taken", async () => {
    // The body is level 1, attributes 2, and meta's 126 objects levels 3 to 128.
    const res = await raw("POST", "/entity/entities", `{"type_name":"Product","name":"deepest","attributes":{"sku":"D-2","meta":${deep(126)}}}`)();
    expect(res.status, JSON.stringify(res.json).slice(0, 300)).toBe(201);
    await refused(
      raw("POST", "/entity/entities", `{"type_name":"Product","name":"deeper","attributes":{"sku":"D-3","meta":${deep(127)}}}`),
      /nests deeper than 128 levels/,
    );
  });

  it("leaves room for the deepest query the API defines: 5 include levels with a 25-level filter inside", async () => {
    let filter: Record<string, unknown> = { operator: "in", path: ["attributes", "sku"], value: ["E-1"] };
    for (let i = 0; i < 25; i++) filter = { operator: "and", filters: [filter] };
    let include: Record<string, unknown>[] = [{ type_name: "Product", rule_name: "related", filter }];
    for (let i = 0; i < 4; i++) include = [{ type_name: "Product", rule_name: "related", include }];
    const res = await call("POST", "/entity/query-graph", { auth: t.auth, body: { type_name: "Product", include } });
    expect(res.status, JSON.stringify(res.json).slice(0, 300)).toBe(200);
  });
});

describe("integers Postgres cannot hold", () => {
  it("refuses a cardinality cap or an artifact version beyond a Postgres integer with 422", async () => {
    const rule = { name: "huge", from_entity_type_name: "Product", to_entity_type_name: "Product" };
    await refused(
      raw(
        "POST",
        "/entity/relationship-rules",
        `{"name":"huge","from_entity_type_name":"Product","to_entity_type_name":"Product","max_to_cardinality":1.7976931348623157e308}`,
      ),
      /^max_to_cardinality: /,
    );
    await refused(post("/entity/relationship-rules", { ...rule, max_from_cardinality: 2_147_483_648 }), /^max_from_cardinality: /);
    const ok = await call("POST", "/entity/relationship-rules", { auth: t.auth, body: { ...rule, max_from_cardinality: 2_147_483_647 } });
    expect(ok.status).toBe(201);
    const missing = crypto.randomUUID();
    await refused(() => call("GET", `/entity/entities/${existing.id}/artifacts/${missing}?version=9007199254740992`, { auth: t.auth }), /^version: /);
    await refused(() => call("GET", `/entity/entities/${existing.id}/artifacts/${missing}/download-url?version=2147483648`, { auth: t.auth }), /^version: /);
  });
});
