// Restricted principals against every entity read and write path, one
// describe per permission shape: a role only, a policy on a role, a policy on
// a user, a grant narrowed to types, a grant narrowed to one entity. Reads
// are checked against a model of what the shape may see (which rows, which
// types it may list); writes shape by shape.
import { beforeAll, describe, expect, it } from "vitest";
import { call, systemQuery } from "../support/api";
import {
  attachArtifact,
  csvIds,
  expectForbidden,
  expectNotFound,
  ids,
  importCsv,
  permissionsOf,
  policyOnRoleToken,
  policyOnUserToken,
  roleToken,
  snapshot,
  world,
  type Grant,
  type World,
} from "./fixture";

type TypeName = "Item" | "Maker" | "Vault";
const TYPES: TypeName[] = ["Item", "Maker", "Vault"];

/** What a principal may read: these rows, and list or query these types. */
interface Model {
  visible: Set<string>;
  listable: Set<TypeName>;
}

interface Case {
  w: World;
  auth: string;
  model: Model;
}

const rowsOf = (w: World, type: TypeName): string[] => Object.values(type === "Item" ? w.item : type === "Maker" ? w.maker : w.vault);
const allRows = (w: World) => TYPES.flatMap((t) => rowsOf(w, t));

/** The world's links as stored: rule, from, to. */
function linksOf(w: World) {
  return [
    { rule: "kept_in", from: w.item.red, to: w.vault.v1 },
    { rule: "kept_in", from: w.item.blue, to: w.vault.v2 },
    { rule: "made_by", from: w.item.red, to: w.maker.acme },
    { rule: "made_by", from: w.item.green, to: w.maker.bolt },
    { rule: "pairs_with", from: w.item.red, to: w.item.blue },
  ];
}

const typeOf = (w: World, id: string): TypeName => TYPES.find((t) => rowsOf(w, t).includes(id))!;

/** The relationships an include of every type shows on `id`, as `rule:other:direction`, restricted to visible other ends. */
function expectedRelationships(c: Case, id: string, types: TypeName[] = TYPES): string[] {
  const out: string[] = [];
  for (const l of linksOf(c.w)) {
    if (l.from === id && c.model.visible.has(l.to) && types.includes(typeOf(c.w, l.to))) out.push(`${l.rule}:${l.to}:to`);
    if (l.to === id && c.model.visible.has(l.from) && types.includes(typeOf(c.w, l.from))) out.push(`${l.rule}:${l.from}:from`);
  }
  return out.sort();
}

const relationshipKeys = (e: { relationships?: { rule: { name: string }; entity: { id: string }; direction: string }[] }) =>
  (e.relationships ?? []).map((r) => `${r.rule.name}:${r.entity.id}:${r.direction}`).sort();

const visibleOf = (c: Case, type: TypeName) =>
  rowsOf(c.w, type)
    .filter((id) => c.model.visible.has(id))
    .sort();

/** Visible items with a link to a visible row of `type`, optionally under `rule` only. */
function itemsLinkedTo(c: Case, type: TypeName, rule?: string) {
  const hits = new Set<string>();
  for (const l of linksOf(c.w)) {
    if (rule && l.rule !== rule) continue;
    for (const [self, other] of [
      [l.from, l.to],
      [l.to, l.from],
    ]) {
      if (typeOf(c.w, self) === "Item" && typeOf(c.w, other) === type && c.model.visible.has(self) && c.model.visible.has(other)) hits.add(self);
    }
  }
  return [...hits].sort();
}

/** Every read path, its answer derived from the case's model. */
function readPaths(get: () => Case) {
  it("GET /entity/entities/{id}: 200 for a readable row, 404 NOT_FOUND for any other", async () => {
    const c = get();
    for (const id of allRows(c.w)) {
      const res = await call("GET", `/entity/entities/${id}`, { auth: c.auth });
      if (c.model.visible.has(id)) {
        expect(res.status, res.text).toBe(200);
        expect(res.json.data.id).toBe(id);
      } else expectNotFound(res);
    }
  });

  it("GET /entity/entities?type_name: the readable rows of a listable type, 403 for another type", async () => {
    const c = get();
    for (const type of TYPES) {
      const res = await call("GET", `/entity/entities?type_name=${type}&limit=100`, { auth: c.auth });
      if (c.model.listable.has(type)) {
        expect(res.status, res.text).toBe(200);
        expect(ids(res.json.data), type).toEqual(visibleOf(c, type));
      } else expectForbidden(res);
    }
  });

  it("POST /entity/query: the readable rows of a listable type, 403 for another type", async () => {
    const c = get();
    for (const type of TYPES) {
      const res = await call("POST", "/entity/query", { auth: c.auth, body: { type_name: type, include_count: true, count_strategy: "exact" } });
      if (c.model.listable.has(type)) {
        expect(res.status, res.text).toBe(200);
        expect(ids(res.json.data), type).toEqual(visibleOf(c, type));
        expect(res.json.count, type).toBe(visibleOf(c, type).length);
      } else expectForbidden(res);
    }
  });

  it("POST /entity/query filters reaching another type (exists, not exists, rel_exists, related attribute, rule name) see only readable related rows", async () => {
    const c = get();
    const got: Record<string, unknown> = {};
    const want: Record<string, unknown> = {};
    const ask = async (label: string, filter: unknown, expected: string[]) => {
      const res = await call("POST", "/entity/query", { auth: c.auth, body: { type_name: "Item", filter, limit: 1000 } });
      got[label] = res.status === 200 ? ids(res.json.data) : `${res.status} ${res.json?.error?.code}`;
      want[label] = expected;
    };
    for (const type of ["Vault", "Maker"] as const) {
      const linked = itemsLinkedTo(c, type);
      const exists = { operator: "exists", path: ["relationships", type] };
      await ask(`exists ${type}`, exists, linked);
      await ask(
        `not exists ${type}`,
        { operator: "not", filters: [exists] },
        visibleOf(c, "Item").filter((id) => !linked.includes(id)),
      );
      const inner =
        type === "Vault"
          ? { operator: "gt", path: ["attributes", "level"], value: 0 }
          : { operator: "in", path: ["attributes", "country"], value: ["FR", "DE"] };
      await ask(`rel_exists ${type}`, { operator: "rel_exists", path: ["relationships", type], value: inner }, linked);
      await ask(`related attribute of ${type}`, { ...inner, path: ["relationships", type, ...inner.path] }, linked);
    }
    for (const [rule, type] of [
      ["kept_in", "Vault"],
      ["made_by", "Maker"],
    ] as const) {
      await ask(`rule name ${rule}`, { operator: "eq", path: ["relationships", "rule", "name"], value: rule }, itemsLinkedTo(c, type, rule));
    }
    expect(got).toEqual(want);
  });

  it("POST /entity/query include and include_specs bring only readable related rows", async () => {
    const c = get();
    for (const body of [{ include: TYPES }, { include_specs: TYPES.map((type_name) => ({ type_name })) }]) {
      const res = await call("POST", "/entity/query", { auth: c.auth, body: { type_name: "Item", ...body } });
      expect(res.status, res.text).toBe(200);
      const got = Object.fromEntries((res.json.data as any[]).map((e) => [e.id, relationshipKeys(e)]));
      expect(got, JSON.stringify(body)).toEqual(Object.fromEntries(visibleOf(c, "Item").map((id) => [id, expectedRelationships(c, id)])));
    }
  });

  it("GET /entity/entities (by id and list) with include brings only readable related rows", async () => {
    const c = get();
    for (const id of visibleOf(c, "Item")) {
      const res = await call("GET", `/entity/entities/${id}?include=Item,Maker,Vault`, { auth: c.auth });
      expect(res.status, res.text).toBe(200);
      expect(relationshipKeys(res.json.data), id).toEqual(expectedRelationships(c, id));
    }
    const spec = encodeURIComponent(JSON.stringify([{ type_name: "Vault" }, { type_name: "Maker" }]));
    const list = await call("GET", `/entity/entities?type_name=Item&include_specs=${spec}`, { auth: c.auth });
    expect(list.status, list.text).toBe(200);
    expect(Object.fromEntries((list.json.data as any[]).map((e) => [e.id, relationshipKeys(e)]))).toEqual(
      Object.fromEntries(visibleOf(c, "Item").map((id) => [id, expectedRelationships(c, id, ["Vault", "Maker"])])),
    );
  });

  it("POST /entity/query-graph: no node the caller may not read, no edge to one", async () => {
    const c = get();
    const res = await call("POST", "/entity/query-graph", {
      auth: c.auth,
      body: { type_name: "Item", include: [{ type_name: "Vault" }, { type_name: "Maker" }, { type_name: "Item" }] },
    });
    expect(res.status, res.text).toBe(200);
    const g = res.json.data;
    expect([...g.roots].sort()).toEqual(visibleOf(c, "Item"));
    const roots = new Set(visibleOf(c, "Item"));
    const reachable = new Set(roots);
    for (const l of linksOf(c.w)) {
      if (roots.has(l.from) && c.model.visible.has(l.to)) reachable.add(l.to);
      if (roots.has(l.to) && c.model.visible.has(l.from)) reachable.add(l.from);
    }
    expect(Object.keys(g.nodes).sort()).toEqual([...reachable].sort());
    const edges = (g.edges as { rule: { name: string }; from_id: string; to_id: string }[]).map((e) => `${e.rule.name}:${e.from_id}:${e.to_id}`).sort();
    expect(edges).toEqual(
      linksOf(c.w)
        .filter((l) => reachable.has(l.from) && reachable.has(l.to))
        .map((l) => `${l.rule}:${l.from}:${l.to}`)
        .sort(),
    );
  });

  it("POST /entity/graphql: the readable rows of each listable type, no unreadable row anywhere in any answer", async () => {
    const c = get();
    const hidden = allRows(c.w).filter((id) => !c.model.visible.has(id));
    const graphql = async (query: string) => {
      const res = await call("POST", "/entity/graphql", { auth: c.auth, body: { query } });
      expect(res.status, res.text).toBe(200);
      for (const id of hidden) expect(res.text, `hidden row ${id} in ${query}`).not.toContain(id);
      return res.json;
    };
    for (const type of TYPES) {
      const answer = await graphql(`{ ${type} { nodes { id } } }`);
      // A type the caller may not list may be left out of its schema (a validation error) or answer no rows.
      expect(ids(answer.data?.[type]?.nodes ?? []), type).toEqual(c.model.listable.has(type) ? visibleOf(c, type) : []);
    }
    const fields = (["Item", "Maker", "Vault"] as const).filter((t) => c.model.listable.has(t));
    const relationFields = [
      "pairs_with",
      "pairs_with_inverse",
      ...(fields.includes("Maker") ? ["made_by"] : []),
      ...(fields.includes("Vault") ? ["kept_in"] : []),
    ];
    const listed = await graphql(`{ Item(limit: 10) { nodes { id ${relationFields.map((f) => `${f}(limit: 10) { id }`).join(" ")} } } }`);
    const expectedOf = (id: string, rule: string, side: "to" | "from") =>
      linksOf(c.w)
        .filter((l) => l.rule === rule && (side === "to" ? l.from === id && c.model.visible.has(l.to) : l.to === id && c.model.visible.has(l.from)))
        .map((l) => (side === "to" ? l.to : l.from))
        .sort();
    expect(listed.errors).toBeUndefined();
    for (const node of listed.data.Item.nodes) {
      for (const f of relationFields) {
        const [rule, side] = f.endsWith("_inverse") ? [f.slice(0, -"_inverse".length), "from" as const] : [f, "to" as const];
        expect(ids(node[f] ?? []), `${f} of ${node.id}`).toEqual(expectedOf(node.id, rule, side));
      }
    }
    // Relationship fields into types it may not read, where its schema still has them, bring no row.
    const everything = await graphql(
      "{ Item(limit: 10) { nodes { id kept_in(limit: 10) { id } made_by(limit: 10) { id } } } Vault(limit: 10) { nodes { id kept_in_inverse(limit: 10) { id } } } Maker(limit: 10) { nodes { id made_by_inverse(limit: 10) { id } } } }",
    );
    if (TYPES.every((t) => c.model.listable.has(t))) expect(everything.errors).toBeUndefined();
  });

  it("POST /entity/query/distinct: the values of readable rows, 403 on another type", async () => {
    const c = get();
    const values: Record<TypeName, [string, (id: string) => unknown]> = {
      Item: ["color", (id) => ({ [c.w.item.red]: "red", [c.w.item.blue]: "blue", [c.w.item.green]: "green" })[id]],
      Maker: ["country", (id) => ({ [c.w.maker.acme]: "FR", [c.w.maker.bolt]: "DE" })[id]],
      Vault: ["level", (id) => ({ [c.w.vault.v1]: 5, [c.w.vault.v2]: 9 })[id]],
    };
    for (const type of TYPES) {
      const [attribute, valueOf] = values[type];
      const res = await call("POST", "/entity/query/distinct", { auth: c.auth, body: { type_name: type, attribute_name: attribute } });
      if (c.model.listable.has(type)) {
        expect(res.status, res.text).toBe(200);
        expect(res.json.data, type).toEqual(visibleOf(c, type).map(valueOf).sort());
      } else expectForbidden(res);
    }
  });

  it("POST /entity/entities/export: the readable rows, 403 on another type", async () => {
    const c = get();
    for (const type of TYPES) {
      const res = await call("POST", "/entity/entities/export", { auth: c.auth, body: { type_name: type, columns: ["id", "name"] } });
      if (c.model.listable.has(type)) {
        expect(res.status, res.text).toBe(200);
        expect(csvIds(res.text), type).toEqual(visibleOf(c, type));
      } else expectForbidden(res);
    }
  });

  it("GET /entity/entities/{id}/artifacts: 200 for a readable row, 404 for any other", async () => {
    const c = get();
    for (const id of allRows(c.w)) {
      const res = await call("GET", `/entity/entities/${id}/artifacts`, { auth: c.auth });
      if (c.model.visible.has(id)) expect(res.status, res.text).toBe(200);
      else expectNotFound(res);
    }
  });
}

/** Runs `attempt`, asserts its answer, and that no entity or link of the world changed. */
async function unchanged(w: World, attempt: () => Promise<{ status: number; json: any }>, check: (res: { status: number; json: any }) => unknown) {
  const before = await snapshot(w.tenantId);
  check(await attempt());
  expect(await snapshot(w.tenantId)).toEqual(before);
}

/** PUT with the row's own key, so that only the permission can refuse it. */
const put = (auth: string, id: string, code: string) => call("PUT", `/entity/entities/${id}`, { auth, body: { name: "Renamed", attributes: { code } } });
const putItem = (auth: string, id: string, sku: string) => call("PUT", `/entity/entities/${id}`, { auth, body: { name: "Renamed", attributes: { sku } } });
const patch = (auth: string, id: string) => call("PATCH", `/entity/entities/${id}/attributes`, { auth, body: { attributes: { note: "patched" } } });
const del = (auth: string, id: string) => call("DELETE", `/entity/entities/${id}`, { auth });
const bulkDelete = (auth: string, list: string[]) => call("POST", "/entity/entities/bulk-delete", { auth, body: { ids: list } });
const create = (auth: string, type: TypeName, key: string) =>
  call("POST", "/entity/entities", { auth, body: { type_name: type, name: `New ${key}`, attributes: type === "Item" ? { sku: key } : { code: key } } });
const upsert = (auth: string, type: TypeName, key: string) =>
  call("POST", "/entity/entities/upsert", {
    auth,
    body: { type_name: type, data: [{ name: `Up ${key}`, attributes: type === "Item" ? { sku: key } : { code: key } }] },
  });
const linkAs = (auth: string, rule: string, from: string, to: string) =>
  call("POST", "/entity/relationships", { auth, body: { rule_name: rule, from_entity_id: from, to_entity_id: to } });
const unlink = (auth: string, id: string) => call("DELETE", `/entity/relationships/${id}`, { auth });
const uploadUrl = (auth: string, id: string) =>
  call("POST", `/entity/entities/${id}/artifacts/upload-url`, { auth, body: { artifact_type: "doc", filename: "b.txt", content_type: "text/plain" } });

const forbiddenFor = (action: string) => (res: { status: number; json: any }) =>
  expect(expectForbidden(res).details).toMatchObject({ resource: "entity", action });

const ALL: Model = { visible: new Set(), listable: new Set(TYPES) };

describe("a role only (entity:read)", () => {
  let c: Case;
  beforeAll(async () => {
    const w = await world();
    const { auth } = await roleToken(w.auth, ["entity:read"]);
    c = { w, auth, model: { ...ALL, visible: new Set(allRows(w)) } };
  });

  it("lists its permissions as the role holds them", async () => {
    expect(await permissionsOf(c.auth)).toEqual(["entity:read"]);
  });

  readPaths(() => c);

  it("every write is 403 FORBIDDEN naming the action, and nothing changes", async () => {
    const { w, auth } = c;
    await unchanged(w, () => putItem(auth, w.item.red, "A1"), forbiddenFor("update"));
    await unchanged(w, () => patch(auth, w.item.red), forbiddenFor("update"));
    await unchanged(w, () => del(auth, w.item.red), forbiddenFor("delete"));
    await unchanged(w, () => bulkDelete(auth, [w.item.red]), forbiddenFor("delete"));
    await unchanged(w, () => create(auth, "Item", "Z1"), forbiddenFor("create"));
    await unchanged(w, () => upsert(auth, "Item", "Z2"), expectForbidden);
    await unchanged(w, () => importCsv(auth, "Item", "name,sku\nZ3,Z3\n"), forbiddenFor("create"));
    await unchanged(w, () => linkAs(auth, "pairs_with", w.item.green, w.item.blue), forbiddenFor("update"));
    await unchanged(w, () => unlink(auth, w.links.redBlue), forbiddenFor("update"));
    await unchanged(w, () => uploadUrl(auth, w.item.red), forbiddenFor("update"));
  });
});

describe("a policy on a role (entity read and update, unnarrowed)", () => {
  let c: Case;
  beforeAll(async () => {
    const w = await world();
    const { auth } = await policyOnRoleToken(w.auth, [{ resource: "entity", actions: ["read", "update"] }]);
    c = { w, auth, model: { ...ALL, visible: new Set(allRows(w)) } };
  });

  it("lists the policy's grants as its permissions", async () => {
    expect(await permissionsOf(c.auth)).toEqual(["entity:read", "entity:update"]);
  });

  readPaths(() => c);

  it("creates, deletes and upserts nothing: 403 FORBIDDEN", async () => {
    const { w, auth } = c;
    await unchanged(w, () => del(auth, w.item.green), forbiddenFor("delete"));
    await unchanged(w, () => bulkDelete(auth, [w.item.green]), forbiddenFor("delete"));
    await unchanged(w, () => create(auth, "Item", "Z1"), forbiddenFor("create"));
    await unchanged(w, () => upsert(auth, "Item", "Z2"), forbiddenFor("create"));
    await unchanged(w, () => importCsv(auth, "Item", "name,sku\nZ3,Z3\n"), forbiddenFor("create"));
  });

  it("updates any row, links any two rows and uploads to any row", async () => {
    const { w, auth } = c;
    const res = await putItem(auth, w.item.green, "A3");
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.name).toBe("Renamed");
    expect((await patch(auth, w.vault.v1)).status).toBe(200);
    const linked = await linkAs(auth, "pairs_with", w.item.green, w.item.blue);
    expect(linked.status, linked.text).toBe(201);
    expect((await unlink(auth, linked.json.data.id)).status).toBe(200);
    expect((await uploadUrl(auth, w.vault.v2)).status).toBe(201);
  });
});

describe("a policy on a user (entity read, create and delete, unnarrowed)", () => {
  let c: Case;
  beforeAll(async () => {
    const w = await world();
    const { auth } = await policyOnUserToken(w.auth, [{ resource: "entity", actions: ["read", "create", "delete"] }]);
    c = { w, auth, model: { ...ALL, visible: new Set(allRows(w)) } };
  });

  it("lists the policy's grants as its permissions", async () => {
    expect(await permissionsOf(c.auth)).toEqual(["entity:create", "entity:delete", "entity:read"]);
  });

  readPaths(() => c);

  it("updates, upserts, imports and links nothing: 403 FORBIDDEN", async () => {
    const { w, auth } = c;
    await unchanged(w, () => putItem(auth, w.item.red, "A1"), forbiddenFor("update"));
    await unchanged(w, () => patch(auth, w.item.red), forbiddenFor("update"));
    await unchanged(w, () => upsert(auth, "Item", "Z2"), forbiddenFor("update"));
    await unchanged(w, () => importCsv(auth, "Item", "name,sku\nZ3,Z3\n"), forbiddenFor("update"));
    await unchanged(w, () => linkAs(auth, "pairs_with", w.item.green, w.item.blue), forbiddenFor("update"));
    await unchanged(w, () => uploadUrl(auth, w.item.red), forbiddenFor("update"));
  });

  it("creates and deletes rows", async () => {
    const { w, auth } = c;
    const made = await create(auth, "Vault", "v9");
    expect(made.status, made.text).toBe(201);
    expect((await del(auth, made.json.data.id)).json.data).toMatchObject({ id: made.json.data.id, deleted: true });
    const bulk = await bulkDelete(auth, [w.item.green]);
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.json.data).toEqual({ deleted: [w.item.green], not_found: [] });
  });
});

describe("grants narrowed to types (Item: read, create, update, delete; Maker: read)", () => {
  let c: Case;
  const grants = (): Grant[] => [
    { resource: "entity", actions: ["read", "create", "update", "delete"], resource_name: "Item" },
    { resource: "entity", actions: ["read"], resource_name: "Maker" },
  ];
  beforeAll(async () => {
    const w = await world();
    await attachArtifact(w.auth, w.vault.v1);
    const { auth } = await policyOnRoleToken(w.auth, grants());
    c = { w, auth, model: { visible: new Set([...rowsOf(w, "Item"), ...rowsOf(w, "Maker")]), listable: new Set(["Item", "Maker"]) } };
  });

  it("lists the narrowed grants as entity:<action>:<type name>", async () => {
    expect(await permissionsOf(c.auth)).toEqual(["entity:create:Item", "entity:delete:Item", "entity:read:Item", "entity:read:Maker", "entity:update:Item"]);
  });

  readPaths(() => c);

  it("an artifact of an unreadable row is 404 to read, download and write", async () => {
    const { w, auth } = c;
    const [artifact] = (await call("GET", `/entity/entities/${w.vault.v1}/artifacts`, { auth: w.auth })).json.data;
    expectNotFound(await call("GET", `/entity/entities/${w.vault.v1}/artifacts/${artifact.id}`, { auth }));
    expectNotFound(await call("POST", `/entity/entities/${w.vault.v1}/artifacts/${artifact.id}/download-url`, { auth }));
    await unchanged(w, () => call("DELETE", `/entity/entities/${w.vault.v1}/artifacts/${artifact.id}`, { auth }), expectNotFound);
    await unchanged(w, () => uploadUrl(auth, w.vault.v1), expectNotFound);
    const [{ n }] = await systemQuery("SELECT count(*)::int AS n FROM artifact_versions v JOIN artifacts a ON a.id = v.artifact_id WHERE a.entity_id = $1", [
      w.vault.v1,
    ]);
    expect(n).toBe(1);
  });

  it("PUT, PATCH, DELETE: 200 on Item, 403 on a readable Maker, 404 on an unreadable Vault", async () => {
    const { w, auth } = c;
    await unchanged(w, () => put(auth, w.maker.acme, "acme"), forbiddenFor("update"));
    await unchanged(w, () => put(auth, w.vault.v1, "v1"), expectNotFound);
    await unchanged(w, () => patch(auth, w.maker.acme), forbiddenFor("update"));
    await unchanged(w, () => patch(auth, w.vault.v1), expectNotFound);
    await unchanged(w, () => del(auth, w.maker.acme), forbiddenFor("delete"));
    await unchanged(w, () => del(auth, w.vault.v1), expectNotFound);
    await unchanged(w, () => uploadUrl(auth, w.maker.acme), forbiddenFor("update"));
    const res = await putItem(auth, w.item.green, "A3");
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.name).toBe("Renamed");
    expect((await patch(auth, w.item.green)).json.data.attributes).toEqual({ sku: "A3", note: "patched" });
    expect((await uploadUrl(auth, w.item.green)).status).toBe(201);
  });

  it("bulk delete: 403 for a readable Maker, 404 for an unreadable Vault, nothing deleted either way", async () => {
    const { w, auth } = c;
    await unchanged(w, () => bulkDelete(auth, [w.maker.bolt]), forbiddenFor("delete"));
    await unchanged(w, () => bulkDelete(auth, [w.item.blue, w.vault.v2]), expectNotFound);
  });

  it("upsert inline relationships: an unreadable target is unresolved as if absent, a readable one it may not update is 403", async () => {
    const { w, auth } = c;
    const row = (rel: Record<string, unknown>) => ({ type_name: "Item", data: [{ name: "Linked", attributes: { sku: "L1" }, relationships: [rel] }] });
    const hidden = await call("POST", "/entity/entities/upsert", { auth, body: row({ rule_name: "kept_in", target_entity_id: w.vault.v1 }) });
    const absent = await call("POST", "/entity/entities/upsert", { auth, body: row({ rule_name: "kept_in", target_entity_id: crypto.randomUUID() }) });
    expect(hidden.status, hidden.text).toBe(422);
    expect(absent.status, absent.text).toBe(422);
    expect(hidden.json.error.message.replace(w.vault.v1, "<id>")).toBe(absent.json.error.message.replace(/[0-9a-f-]{36}/, "<id>"));
    await unchanged(
      w,
      () => call("POST", "/entity/entities/upsert", { auth, body: row({ rule_name: "made_by", target_entity_id: w.maker.acme }) }),
      forbiddenFor("update"),
    );
    const ok = await call("POST", "/entity/entities/upsert", { auth, body: row({ rule_name: "pairs_with", target_entity_id: w.item.red }) });
    expect(ok.status, ok.text).toBe(200);
  });

  it("create, upsert and import: allowed into Item, 403 into Maker and Vault with nothing written", async () => {
    const { w, auth } = c;
    for (const type of ["Maker", "Vault"] as const) {
      await unchanged(w, () => create(auth, type, `k-${type}`), forbiddenFor("create"));
      await unchanged(w, () => upsert(auth, type, `u-${type}`), expectForbidden);
      await unchanged(w, () => importCsv(auth, type, `name,code\nI,i-${type}\n`), expectForbidden);
    }
    expect((await create(auth, "Item", "N1")).status).toBe(201);
    const up = await upsert(auth, "Item", "N2");
    expect(up.status, up.text).toBe(200);
    expect(up.json.data.created).toBe(1);
    const imported = await importCsv(auth, "Item", "name,sku\nN3,N3\n");
    expect(imported.status, imported.text).toBe(200);
    expect(imported.json.data.created).toBe(1);
  });

  it("relationships: 404 when an end is unreadable, 403 when an end is not updatable, 201 between two Items", async () => {
    const { w, auth } = c;
    await unchanged(w, () => linkAs(auth, "kept_in", w.item.green, w.vault.v1), expectNotFound);
    await unchanged(w, () => linkAs(auth, "made_by", w.item.blue, w.maker.bolt), forbiddenFor("update"));
    await unchanged(w, () => unlink(auth, w.links.redV1), expectNotFound);
    await unchanged(w, () => unlink(auth, w.links.redAcme), forbiddenFor("update"));
    const linked = await linkAs(auth, "pairs_with", w.item.blue, w.item.green);
    expect(linked.status, linked.text).toBe(201);
    expect((await unlink(auth, linked.json.data.id)).status).toBe(200);
  });

  it("DELETE of an Item it may delete", async () => {
    const { w, auth } = c;
    expect((await del(auth, w.item.green)).json.data).toMatchObject({ id: w.item.green, deleted: true });
  });
});

describe("a grant narrowed to one entity (read and update on the red Item)", () => {
  let c: Case;
  beforeAll(async () => {
    const w = await world();
    const { auth } = await policyOnUserToken(w.auth, [{ resource: "entity", actions: ["read", "update"], resource_id: w.item.red }]);
    c = { w, auth, model: { visible: new Set([w.item.red]), listable: new Set(["Item"]) } };
  });

  it("lists the narrowed grant as entity:<action>:<entity id>", async () => {
    expect(await permissionsOf(c.auth)).toEqual([`entity:read:${c.w.item.red}`, `entity:update:${c.w.item.red}`]);
  });

  readPaths(() => c);

  it("writes: PUT and PATCH its row; 404 on any other row; DELETE and create 403", async () => {
    const { w, auth } = c;
    await unchanged(w, () => putItem(auth, w.item.blue, "A2"), expectNotFound);
    await unchanged(w, () => patch(auth, w.maker.acme), expectNotFound);
    await unchanged(w, () => del(auth, w.item.red), forbiddenFor("delete"));
    await unchanged(w, () => create(auth, "Item", "Z1"), forbiddenFor("create"));
    await unchanged(w, () => upsert(auth, "Item", "Z2"), expectForbidden);
    await unchanged(w, () => linkAs(auth, "pairs_with", w.item.red, w.item.green), expectNotFound);
    await unchanged(w, () => uploadUrl(auth, w.item.blue), expectNotFound);
    const put = await putItem(auth, w.item.red, "A1");
    expect(put.status, put.text).toBe(200);
    expect(put.json.data.name).toBe("Renamed");
    const patched = await patch(auth, w.item.red);
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.data.attributes).toEqual({ sku: "A1", note: "patched" });
    expect((await uploadUrl(auth, w.item.red)).status).toBe(201);
  });
});
