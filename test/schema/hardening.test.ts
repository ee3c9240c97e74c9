// Tenant schemas cannot stall the Worker or fail at validation time: patterns
// run on a linear-time engine, and a schema is checked (meta-schema, `$ref`s,
// patterns) before it is stored.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery } from "../support/api";
import { createType } from "../support/entities";

/** `^(a+)+$` took 117 s on this input under JavaScript's backtracking engine. */
const FREEZE = { type: "string", pattern: "^(a+)+$" };
const POISON = `${"a".repeat(32)}!`;

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = Date.now();
  const result = await fn();
  return [result, Date.now() - start];
}

async function codeType(auth: string, pattern: Record<string, unknown>) {
  return createType(auth, {
    name: "Coded",
    schema: { type: "object", required: ["code"], properties: { code: { type: "string" } }, ...pattern },
    config: { identifier_key: ["code"] },
  });
}

describe("patterns run in linear time", () => {
  it("answers the pattern that froze the Worker promptly, as invalid, through /schema/validate (inline and registered)", async () => {
    const { auth } = await createTenant();
    const [inline, ms] = await timed(() => call("POST", "/schema/validate", { auth, body: { schema: FREEZE, data: POISON } }));
    expect(inline.status).toBe(200);
    expect(inline.json.data).toEqual({ valid: false, errors: ["(root): must match the pattern ^(a+)+$"] });
    expect(ms).toBeLessThan(2000);

    expect((await call("POST", "/schema/schemas", { auth, body: { name: "nested", schema: FREEZE } })).status).toBe(201);
    const [byName, ms2] = await timed(() => call("POST", "/schema/validate", { auth, body: { schema_name: "nested", data: POISON } }));
    expect(byName.json.data).toEqual({ valid: false, errors: ["(root): must match the pattern ^(a+)+$"] });
    expect(ms2).toBeLessThan(2000);
    expect((await call("POST", "/schema/validate", { auth, body: { schema_name: "nested", data: "aaaa" } })).json.data).toEqual({ valid: true, errors: [] });
  });

  it("applies the same engine to patternProperties and propertyNames", async () => {
    const { auth } = await createTenant();
    const schema = { type: "object", patternProperties: { "^(a+)+$": { type: "integer" } }, propertyNames: { pattern: "^(a+)+!?$" } };
    const [res, ms] = await timed(() => call("POST", "/schema/validate", { auth, body: { schema, data: { [POISON]: "x", [`${POISON}?`]: 1, aaa: "y" } } }));
    expect(ms).toBeLessThan(2000);
    expect(res.json.data).toEqual({ valid: false, errors: [`${POISON}?: must match the pattern ^(a+)+!?$`, "aaa: must be integer, got string"] });
  });

  it("refuses an entity write against the pattern promptly with 422, and stores nothing", async () => {
    const { auth } = await createTenant();
    const type = await codeType(auth, { properties: { code: FREEZE } });
    const [res, ms] = await timed(() =>
      call("POST", "/entity/entities", { auth, body: { type_name: type.name, name: "poison", attributes: { code: POISON } } }),
    );
    expect(ms).toBeLessThan(2000);
    expect(expectError(res, 422, "VALIDATION_FAILED").details.validation_errors).toEqual(["attributes.code: must match the pattern ^(a+)+$"]);
    expect(await systemQuery("SELECT 1 FROM entities WHERE type_id = $1", [type.id])).toEqual([]);
    expect((await call("POST", "/entity/entities", { auth, body: { type_name: type.name, name: "fine", attributes: { code: "aaa" } } })).status).toBe(201);
  });

  it("keeps format url linear: the validator's own url regex backtracked exponentially", async () => {
    const { auth } = await createTenant();
    const schema = { type: "string", format: "url" };
    const [res, ms] = await timed(() => call("POST", "/schema/validate", { auth, body: { schema, data: `http://${"a".repeat(40)} ` } }));
    expect(ms).toBeLessThan(2000);
    expect(res.json.data).toEqual({ valid: false, errors: ['(root): String does not match format "url"'] });
    expect((await call("POST", "/schema/validate", { auth, body: { schema, data: "https://example.com/a?b=1" } })).json.data.valid).toBe(true);
  });
});

describe("schemas are checked before they are stored", () => {
  const unusable: [string, Record<string, unknown>, string[]][] = [
    [
      "a wrong keyword type",
      { type: 12345 },
      [
        'schema.type: does not match any allowed shape (must be one of ["array","boolean","integer","null","number","object","string"] | must be array, got number)',
      ],
    ],
    ["a nested one", { type: "object", properties: { n: { minLength: -1 } } }, ["schema.properties.n.minLength: -1 is less than 0"]],
    [
      "a $ref that resolves nowhere",
      { type: "object", properties: { a: { $ref: "#/$defs/missing" } } },
      ['schema.properties.a.$ref: "#/$defs/missing" does not resolve to a schema in this document'],
    ],
    [
      "a pattern that is not ECMAScript",
      { type: "object", properties: { a: { type: "string", pattern: "([a-z]" } } },
      ['schema.properties.a.pattern: String does not match format "regex"'],
    ],
    [
      "a backreference and a lookahead",
      { type: "object", properties: { a: { type: "string", pattern: "^(a)\\1$" } }, patternProperties: { "^(?!x)": {} } },
      [
        "schema.properties.a.pattern: uses what the linear-time regex engine cannot run: backreferences",
        "schema.patternProperties.^(?!x): uses what the linear-time regex engine cannot run: lookahead and lookbehind",
      ],
    ],
    [
      "a lookbehind in propertyNames",
      { type: "object", propertyNames: { pattern: "(?<=a)b" } },
      ["schema.propertyNames.pattern: uses what the linear-time regex engine cannot run: lookahead and lookbehind"],
    ],
  ];

  it.each(unusable)("refuses %s at registration with 422 naming the path", async (_, schema, lines) => {
    const { auth, tenantId } = await createTenant();
    const err = expectError(await call("POST", "/schema/schemas", { auth, body: { name: "bad", schema } }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(lines);
    expect(await systemQuery("SELECT 1 FROM schemas WHERE tenant_id = $1", [tenantId])).toEqual([]);
    // The same check guards inline schemas of /schema/validate.
    expect(
      expectError(await call("POST", "/schema/validate", { auth, body: { schema, data: {} } }), 422, "VALIDATION_FAILED").details.validation_errors,
    ).toEqual(lines);
  });

  it.each(unusable)("refuses %s as an entity type's inline schema, on create and on PATCH", async (_, schema, lines) => {
    const { auth } = await createTenant();
    const created = await call("POST", "/entity/entity-types", { auth, body: { name: "Bad", schema, config: { identifier_key: ["code"] } } });
    expect(expectError(created, 422, "VALIDATION_FAILED").details.validation_errors).toEqual(lines);
    const type = await codeType(auth, {});
    const patched = await call("PATCH", `/entity/entity-types/${type.id}`, { auth, body: { schema } });
    expect(expectError(patched, 422, "VALIDATION_FAILED").details.validation_errors).toEqual(lines);
    const [row] = await systemQuery("SELECT schema FROM entity_types WHERE id = $1", [type.id]);
    expect(row.schema.properties).toEqual({ code: { type: "string" } });
  });

  it("accepts $refs that resolve by pointer, $anchor and embedded $id", async () => {
    const { auth } = await createTenant();
    const schema = {
      $id: "https://example.com/order",
      type: "object",
      properties: { a: { $ref: "#/$defs/name" }, b: { $ref: "#code" }, c: { $ref: "https://example.com/part" } },
      $defs: { name: { type: "string" }, code: { $anchor: "code", type: "integer" }, part: { $id: "https://example.com/part", type: "boolean" } },
    };
    expect((await call("POST", "/schema/schemas", { auth, body: { name: "refs", schema } })).status).toBe(201);
    const res = await call("POST", "/schema/validate", { auth, body: { schema_name: "refs", data: { a: 1, b: "x", c: true } } });
    expect(res.json.data).toEqual({ valid: false, errors: ["a: must be string, got number", "b: must be integer, got string"] });
  });

  it("accepts the boolean schemas true and false at the root", async () => {
    const { auth } = await createTenant();
    const registered = await call("POST", "/schema/schemas", { auth, body: { name: "anything", schema: true } });
    expect(registered.status).toBe(201);
    expect(registered.json.data).toMatchObject({ name: "anything", version: 1, schema: true });
    expect((await call("GET", "/schema/schemas/anything", { auth })).json.data.schema).toBe(true);
    expect((await call("POST", "/schema/validate", { auth, body: { schema_name: "anything", data: [1, "x"] } })).json.data).toEqual({
      valid: true,
      errors: [],
    });
    expect((await call("POST", "/schema/schemas", { auth, body: { name: "nothing", schema: false } })).status).toBe(201);
    expect((await call("POST", "/schema/validate", { auth, body: { schema_name: "nothing", data: 1 } })).json.data).toEqual({
      valid: false,
      errors: ["(root): is not allowed"],
    });
    expect((await call("POST", "/schema/validate", { auth, body: { schema: true, data: null } })).json.data).toEqual({ valid: true, errors: [] });
    expect((await call("POST", "/schema/validate", { auth, body: { schema: false, data: {} } })).json.data).toEqual({
      valid: false,
      errors: ["(root): is not allowed"],
    });
  });
});

describe("a schema stored before these checks answers 4xx, never 500", () => {
  it("answers 422 for an unresolvable $ref in a registered schema", async () => {
    const { auth, tenantId } = await createTenant();
    await systemQuery("INSERT INTO schemas (tenant_id, name, version, schema) VALUES ($1, 'legacy', 1, $2)", [
      tenantId,
      { properties: { a: { $ref: "#/nowhere" } } },
    ]);
    const err = expectError(await call("POST", "/schema/validate", { auth, body: { schema_name: "legacy", data: { a: 1 } } }), 422, "UNPROCESSABLE_ENTITY");
    expect(err.message).toBe('The schema cannot be evaluated: Unresolved $ref "#/nowhere".');
  });

  it("answers 422 for an entity write against a stored backreference", async () => {
    const { auth } = await createTenant();
    const type = await codeType(auth, {});
    await systemQuery("UPDATE entity_types SET schema = $2 WHERE id = $1", [
      type.id,
      { type: "object", properties: { code: { type: "string", pattern: "^(a)\\1$" } } },
    ]);
    const res = await call("POST", "/entity/entities", { auth, body: { type_name: type.name, name: "x", attributes: { code: "aa" } } });
    const err = expectError(res, 422, "UNPROCESSABLE_ENTITY");
    expect(err.message).toBe('The schema cannot be evaluated: pattern "^(a)\\\\1$" uses what the linear-time regex engine cannot run: backreferences');
    expect(await systemQuery("SELECT 1 FROM entities WHERE type_id = $1", [type.id])).toEqual([]);
  });
});

describe("format asserts the same way everywhere", () => {
  it("refuses a malformed email in an entity write and in /schema/validate alike", async () => {
    const { auth } = await createTenant();
    const schema = { type: "object", required: ["code"], properties: { code: { type: "string" }, email: { type: "string", format: "email" } } };
    const type = await createType(auth, { name: "Contact", schema, config: { identifier_key: ["code"] } });
    const write = await call("POST", "/entity/entities", {
      auth,
      body: { type_name: type.name, name: "c", attributes: { code: "c1", email: "not-an-email" } },
    });
    expect(expectError(write, 422, "VALIDATION_FAILED").details.validation_errors).toEqual(['attributes.email: String does not match format "email"']);
    const checked = await call("POST", "/schema/validate", { auth, body: { schema, data: { code: "c1", email: "not-an-email" } } });
    expect(checked.json.data).toEqual({ valid: false, errors: ['email: String does not match format "email"'] });
    // A format the validator does not know is an annotation only.
    expect((await call("POST", "/schema/validate", { auth, body: { schema: { type: "string", format: "color" }, data: "x" } })).json.data.valid).toBe(true);
  });
});

describe("a schema is checked and validated by the draft its $schema names", () => {
  const DRAFT_07 = "http://json-schema.org/draft-07/schema#";
  /** A draft-07 tuple: a code, then a count, nothing after. */
  const pair = { $schema: DRAFT_07, type: "array", items: [{ type: "string" }, { type: "integer" }], additionalItems: false };

  it("registers a draft-07 tuple schema and validates by draft-07 rules; without $schema the same keywords are refused", async () => {
    const { auth, tenantId } = await createTenant();
    expect((await call("POST", "/schema/schemas", { auth, body: { name: "pair", schema: pair } })).status).toBe(201);
    expect((await call("POST", "/schema/validate", { auth, body: { schema_name: "pair", data: ["a", 1] } })).json.data).toEqual({ valid: true, errors: [] });
    expect((await call("POST", "/schema/validate", { auth, body: { schema_name: "pair", data: ["a", "b", 3] } })).json.data).toEqual({
      valid: false,
      errors: ["[1]: must be integer, got string", "[2]: is not allowed"],
    });
    const { $schema: _, ...undeclared } = pair;
    const refused = expectError(await call("POST", "/schema/schemas", { auth, body: { name: "pair2020", schema: undeclared } }), 422, "VALIDATION_FAILED");
    expect(refused.details.validation_errors).toEqual(["schema.items: must be object or boolean, got array"]);
    expect(await systemQuery("SELECT name FROM schemas WHERE tenant_id = $1", [tenantId])).toEqual([{ name: "pair" }]);
  });

  it("holds an entity type's draft-07 schema to draft-07 rules on every write", async () => {
    const { auth, tenantId } = await createTenant();
    const schema = { $schema: DRAFT_07, type: "object", required: ["code"], properties: { code: { type: "string" }, pair: pair } };
    const type = await createType(auth, { name: "Paired", schema, config: { identifier_key: ["code"] } });
    const ok = await call("POST", "/entity/entities", { auth, body: { type_name: type.name, name: "ok", attributes: { code: "c1", pair: ["a", 2] } } });
    expect(ok.status).toBe(201);
    const bad = await call("POST", "/entity/entities", { auth, body: { type_name: type.name, name: "bad", attributes: { code: "c2", pair: ["a", 2, 3] } } });
    expect(expectError(bad, 422, "VALIDATION_FAILED").details.validation_errors).toEqual(["attributes.pair[2]: is not allowed"]);
    expect(await systemQuery("SELECT name FROM entities WHERE tenant_id = $1", [tenantId])).toEqual([{ name: "ok" }]);
  });

  it("checks a 2019-09 schema against the 2019-09 meta-schema", async () => {
    const { auth } = await createTenant();
    const schema = {
      $schema: "https://json-schema.org/draft/2019-09/schema",
      $recursiveAnchor: true,
      type: "object",
      properties: { kids: { type: "array", items: { $recursiveRef: "#" } }, n: { type: "integer" } },
    };
    expect((await call("POST", "/schema/validate", { auth, body: { schema, data: { kids: [{ n: 1, kids: [{ n: "x" }] }] } } })).json.data).toEqual({
      valid: false,
      errors: ["kids[0].kids[0].n: must be integer, got string"],
    });
    const bad = await call("POST", "/schema/validate", { auth, body: { schema: { ...schema, minProperties: -1 }, data: {} } });
    expect(expectError(bad, 422, "VALIDATION_FAILED").details.validation_errors).toEqual(["schema.minProperties: -1 is less than 0"]);
  });

  it("resolves a $ref to the 2020-12 meta-schema's own URI, and refuses a $schema naming another draft", async () => {
    const { auth, tenantId } = await createTenant();
    const contract = { type: "object", properties: { schema: { $ref: "https://json-schema.org/draft/2020-12/schema" } } };
    expect((await call("POST", "/schema/schemas", { auth, body: { name: "contract", schema: contract } })).status).toBe(201);
    const res = await call("POST", "/schema/validate", { auth, body: { schema_name: "contract", data: { schema: { type: "strin" } } } });
    expect(res.json.data.valid).toBe(false);
    expect(res.json.data.errors).toEqual([
      'schema.type: does not match any allowed shape (must be one of ["array","boolean","integer","null","number","object","string"] | must be array, got string)',
    ]);
    const draft4 = await call("POST", "/schema/schemas", {
      auth,
      body: { name: "old", schema: { $schema: "http://json-schema.org/draft-04/schema#", type: "string" } },
    });
    expect(expectError(draft4, 422, "VALIDATION_FAILED").details.validation_errors).toEqual([
      "schema.$schema: names no draft this service validates by (http://json-schema.org/draft-07/schema#, https://json-schema.org/draft/2019-09/schema, https://json-schema.org/draft/2020-12/schema, or none for 2020-12)",
    ]);
    expect(await systemQuery("SELECT name FROM schemas WHERE tenant_id = $1", [tenantId])).toEqual([{ name: "contract" }]);
  });
});
