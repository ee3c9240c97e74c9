// One output form across routes: JSON as JSON.stringify writes it (no
// whitespace between tokens, numbers as JavaScript prints them) and one
// timestamp form (RFC 3339 UTC, the stored fraction with trailing zeros
// trimmed, none on a whole second), whoever builds the answer.
import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { signLink } from "../../src/gateway/capability";
import { BASE, call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { createEntity, createType } from "../support/entities";

/** The API's timestamp form. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d*[1-9])?Z$/;
const CREATED = "2026-01-02T03:04:05Z";
const UPDATED = "2026-01-02T03:04:05.1Z";

let t: TenantCreds;
let id: string;
beforeAll(async () => {
  t = await createTenant();
  await createType(t.auth, {
    name: "Thing",
    schema: { type: "object", properties: { sku: { type: "string" }, title: { type: "string" }, price: { type: "number" }, dims: { type: "object" } } },
    config: { identifier_key: ["sku"] },
  });
  ({ id } = await createEntity(t.auth, "Thing", "Widget", { sku: "W1" }));
  // As Postgres keeps them: a price with a trailing zero, a whole second and a tenth.
  await systemQuery(
    `UPDATE entities SET attributes = '{"sku": "W1", "title": "a : b, c", "price": 1.50, "dims": {"w": 2, "h": 0.25}}'::jsonb,
       created_at = '2026-01-02 03:04:05+00', updated_at = '2026-01-02 03:04:05.1+00' WHERE id = $1`,
    [id],
  );
});

/** The answer's text is exactly what JSON.stringify writes for its value. */
function compact(res: { status: number; text: string; json: any }) {
  expect(res.status, res.text).toBe(200);
  expect(res.text).toBe(JSON.stringify(res.json));
  return res.json;
}

const expected = {
  name: "Widget",
  attributes: { sku: "W1", dims: { h: 0.25, w: 2 }, price: 1.5, title: "a : b, c" },
  created_at: CREATED,
  updated_at: UPDATED,
  deleted_at: null,
};

describe("an entity reads alike through every route", () => {
  it("GET, list, POST /entity/query (with includes or not), query-graph, GraphQL and the CSV export answer it alike", async () => {
    const one = compact(await call("GET", `/entity/entities/${id}`, { auth: t.auth })).data;
    expect(one).toMatchObject({ ...expected, id });
    const listed = compact(await call("GET", "/entity/entities?type_name=Thing", { auth: t.auth })).data;
    const queried = compact(await call("POST", "/entity/query", { auth: t.auth, body: { type_name: "Thing" } })).data;
    const withIncludes = compact(
      await call("POST", "/entity/query", { auth: t.auth, body: { type_name: "Thing", include_specs: [{ type_name: "Thing" }] } }),
    ).data;
    expect(JSON.stringify(listed[0])).toBe(JSON.stringify(one));
    expect(JSON.stringify(queried[0])).toBe(JSON.stringify(one));
    expect(JSON.stringify({ ...withIncludes[0], relationships: undefined })).toBe(JSON.stringify(one));
    expect(withIncludes[0].relationships).toEqual([]);

    const graph = compact(await call("POST", "/entity/query-graph", { auth: t.auth, body: { type_name: "Thing" } })).data;
    expect(JSON.stringify(graph.nodes[id])).toBe(JSON.stringify(one));
    const gql = compact(
      await call("POST", "/entity/graphql", { auth: t.auth, body: { query: "{ Thing { nodes { id created_at updated_at attributes } } }" } }),
    );
    expect(gql.data.Thing.nodes).toEqual([{ id, created_at: CREATED, updated_at: UPDATED, attributes: expected.attributes }]);
    const res = await SELF.fetch(`${BASE}/entity/entities/export`, {
      method: "POST",
      headers: { Authorization: t.auth, "Content-Type": "application/json" },
      body: JSON.stringify({ type_name: "Thing", columns: ["id", "created_at", "updated_at", "price"] }),
    });
    expect(await res.text()).toBe(`id,created_at,updated_at,price\r\n${id},${CREATED},${UPDATED},1.5\r\n`);
  });

  it("POST /entity/query has no whitespace between tokens", async () => {
    const res = await call("POST", "/entity/query", { auth: t.auth, body: { type_name: "Thing" } });
    expect(res.text).toContain(`{"data":[{"id":"${id}","name":"Widget","type":{"id":`);
    expect(res.text).toContain(
      `"attributes":{"sku":"W1","dims":{"h":0.25,"w":2},"price":1.5,"title":"a : b, c"},"identifier_key":"W1","created_at":"${CREATED}","updated_at":"${UPDATED}","deleted_at":null}]`,
    );
  });
});

describe("timestamps made in the Worker", () => {
  it("a temp file's download link expires in the form its expires_at has, without a zero fraction", async () => {
    const created = await call("POST", "/entity/temp-files", {
      auth: t.auth,
      rawBody: new Uint8Array([1]),
      headers: { "X-Temp-File-Name": "a.txt", "Content-Type": "text/plain" },
    });
    expect(created.status, created.text).toBe(201);
    const file = created.json.data;
    expect(file.expires_at).toMatch(TIMESTAMP);
    // The file expires half a second after a whole second: the link stops at that whole second.
    const [{ at }] = await systemQuery(
      "UPDATE temp_files SET expires_at = date_trunc('second', now()) + interval '600.5 seconds' WHERE id = $1 RETURNING extract(epoch FROM date_trunc('second', expires_at))::int AS at",
      [file.id],
    );
    const link = compact(await call("POST", `/entity/temp-files/${file.id}/download-url`, { auth: t.auth, body: {} })).data;
    expect(link.expires_at).toMatch(TIMESTAMP);
    expect(link.expires_at).toBe(new Date(at * 1000).toISOString().replace(".000Z", "Z"));

    const expired = await signLink(env.MASTER_KEY, "temp-file-download", t.tenantId, file.id, BASE, `/entity/temp-files/${file.id}/download`, at - 3600);
    const res = await SELF.fetch(expired.url);
    const err = expectError({ status: res.status, json: await res.json() }, 401, "UNAUTHORIZED");
    expect(err.details).toMatchObject({ code: "LINK_EXPIRED", expired_at: new Date((at - 3600) * 1000).toISOString().replace(".000Z", "Z") });
  });
});
