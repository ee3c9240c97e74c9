// The one walk of a type's schema along an attribute path, which both refuses
// entity-type configs and names unknown paths in query warnings.
import { describe, expect, it } from "vitest";
import { schemasAt } from "../../src/entity/schema-paths";

const closed = { type: "object", additionalProperties: false, properties: { sku: { type: "string" } } };

describe("schemasAt: what a schema says about an attribute path", () => {
  it("follows properties, nested through dotted identifier segments", () => {
    const schema = { type: "object", properties: { address: { type: "object", properties: { zip: { type: "string", maxLength: 10 } } } } };
    expect(schemasAt(schema, ["address", "zip"])).toEqual({ schemas: [{ type: "string", maxLength: 10 }] });
  });

  it("refuses a name additionalProperties: false leaves out, at any depth, also below an open object's additional properties", () => {
    expect(schemasAt(closed, ["zip"])).toEqual({ forbidden: "attributes.zip is not defined by the schema (additionalProperties is false)" });
    const nested = { type: "object", properties: { address: { type: "object", additionalProperties: false, properties: { street: { type: "string" } } } } };
    expect(schemasAt(nested, ["address", "zip"])).toEqual({ forbidden: "attributes.address.zip is not defined by the schema (additionalProperties is false)" });
    const closedValues = { type: "object", additionalProperties: { type: "object", additionalProperties: false } };
    expect(schemasAt(closedValues, ["x"])).toEqual({ schemas: [{ type: "object", additionalProperties: false }] });
    expect(schemasAt(closedValues, ["x", "y"])).toEqual({ forbidden: "attributes.x.y is not defined by the schema (additionalProperties is false)" });
  });

  it("refuses a path below a value the schema types as something other than an object", () => {
    const schema = { type: "object", properties: { address: { type: ["string", "null"] } } };
    expect(schemasAt(schema, ["address", "zip"])).toEqual({
      forbidden: "attributes.address.zip cannot be written: attributes.address is string or null in the schema",
    });
  });

  it("refuses a property whose schema is false, and everything under a false schema", () => {
    expect(schemasAt({ type: "object", properties: { legacy: false } }, ["legacy"])).toEqual({ forbidden: "attributes.legacy is not allowed by the schema" });
    expect(schemasAt(false, ["k"])).toEqual({ forbidden: "attributes is not allowed by the schema (the schema is false)" });
  });

  it("lets through what additionalProperties or a matching patternProperties allows, with their schemas", () => {
    expect(schemasAt({ type: "object" }, ["anything", "deeper"])).toEqual({ schemas: [] });
    expect(schemasAt(true, ["k"])).toEqual({ schemas: [] });
    expect(schemasAt({ type: "object", additionalProperties: { type: "number" } }, ["n"])).toEqual({ schemas: [{ type: "number" }] });
    const patterned = { type: "object", additionalProperties: false, patternProperties: { "^x_": { type: "boolean" } } };
    expect(schemasAt(patterned, ["x_on"])).toEqual({ schemas: [{ type: "boolean" }] });
    expect(schemasAt(patterned, ["on"])).toEqual({ forbidden: "attributes.on is not defined by the schema (additionalProperties is false)" });
  });

  it("applies properties and matching patterns together", () => {
    const schema = { type: "object", properties: { x_id: { minLength: 1 } }, patternProperties: { "^x_": { type: "string" } } };
    expect(schemasAt(schema, ["x_id"])).toEqual({ schemas: [{ minLength: 1 }, { type: "string" }] });
  });

  it("refuses nothing it cannot decide: $ref, branches under unevaluatedProperties, patterns it cannot run", () => {
    const withRef = { $defs: { a: { type: "object" } }, $ref: "#/$defs/a", additionalProperties: false };
    expect(schemasAt(withRef, ["k"])).toEqual({ schemas: [] });
    const branches = { type: "object", allOf: [{ properties: { k: { type: "string" } } }], unevaluatedProperties: false };
    expect(schemasAt(branches, ["k"])).toEqual({ schemas: [] });
    const oneOf = { type: "object", oneOf: [{ properties: { a: { type: "string" } } }, { properties: { b: { type: "number" } } }] };
    expect(schemasAt(oneOf, ["c"])).toEqual({ schemas: [] });
    const backreference = { type: "object", additionalProperties: false, patternProperties: { "^(a)\\1$": { type: "string" } } };
    expect(schemasAt(backreference, ["k"])).toEqual({ schemas: [] });
  });

  it("refuses what additionalProperties: false forbids even beside allOf, and unevaluatedProperties: false alone", () => {
    const beside = { type: "object", additionalProperties: false, allOf: [{ properties: { k: { type: "string" } } }] };
    expect(schemasAt(beside, ["k"])).toEqual({
      forbidden: "attributes.k is not defined by the schema (additionalProperties is false, and it ignores properties named inside allOf)",
    });
    expect(schemasAt({ type: "object", properties: {}, unevaluatedProperties: false }, ["k"])).toEqual({
      forbidden: "attributes.k is not defined by the schema (unevaluatedProperties is false)",
    });
  });
});

describe("schemasAt: integer segments and array items", () => {
  const schema = {
    type: "object",
    properties: {
      tags: { type: "array", items: { type: "string" } },
      list: { type: "array", items: { type: "object", additionalProperties: false, properties: { k: { type: "number" } } } },
      pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false },
      few: { type: "array", maxItems: 2 },
      strict: { type: "array", prefixItems: [{ type: "string" }], unevaluatedItems: false },
      none: { type: "array", items: false },
    },
  };

  it("reaches an item by a subscript as Postgres's #> reads one, negative ones counting from the end", () => {
    expect(schemasAt(schema, ["tags", "0"])).toEqual({ schemas: [{ type: "string" }] });
    expect(schemasAt(schema, ["tags", "-1"])).toEqual({ schemas: [{ type: "string" }] });
    expect(schemasAt(schema, ["tags", " +2"])).toEqual({ schemas: [{ type: "string" }] });
    expect(schemasAt(schema, ["list", "0", "k"])).toEqual({ schemas: [{ type: "number" }] });
    expect(schemasAt(schema, ["list", "-1", "k"])).toEqual({ schemas: [{ type: "number" }] });
  });

  it("refuses a name or a non-integer below an array, and what an item's schema forbids", () => {
    expect(schemasAt(schema, ["tags", "first"])).toEqual({
      forbidden: "attributes.tags.first cannot be written: attributes.tags is array of string in the schema",
    });
    expect(schemasAt(schema, ["tags", "1.5"])).toEqual({
      forbidden: "attributes.tags.1.5 cannot be written: attributes.tags is array of string in the schema",
    });
    expect(schemasAt(schema, ["tags", "0 "])).toEqual({ forbidden: "attributes.tags.0  cannot be written: attributes.tags is array of string in the schema" });
    expect(schemasAt(schema, ["list", "k"])).toEqual({ forbidden: "attributes.list.k cannot be written: attributes.list is array of object in the schema" });
    expect(schemasAt(schema, ["list", "0", "z"])).toEqual({ forbidden: "attributes.list.0.z is not defined by the schema (additionalProperties is false)" });
  });

  it("follows prefixItems, then items, and refuses an index past what items, maxItems or unevaluatedItems allow", () => {
    expect(schemasAt(schema, ["pair", "1"])).toEqual({ schemas: [{ type: "number" }] });
    expect(schemasAt(schema, ["pair", "-1"])).toEqual({ schemas: [] });
    expect(schemasAt(schema, ["pair", "2"])).toEqual({ forbidden: "attributes.pair.2 is not allowed by the schema (items is false after the 2 prefixItems)" });
    expect(schemasAt(schema, ["none", "-1"])).toEqual({ forbidden: "attributes.none.-1 is not allowed by the schema (items is false)" });
    expect(schemasAt(schema, ["few", "1"])).toEqual({ schemas: [] });
    expect(schemasAt(schema, ["few", "2"])).toEqual({ forbidden: "attributes.few.2 cannot be written: attributes.few has at most 2 items in the schema" });
    expect(schemasAt(schema, ["strict", "0"])).toEqual({ schemas: [{ type: "string" }] });
    expect(schemasAt(schema, ["strict", "1"])).toEqual({
      forbidden: "attributes.strict.1 is not defined by the schema (unevaluatedItems is false after the 1 prefixItems)",
    });
    expect(schemasAt({ type: "array", unevaluatedItems: false, contains: { type: "string" } }, ["0"])).toEqual({ schemas: [] });
  });

  it("follows a draft-07 tuple: the items array, then additionalItems", () => {
    const tuple = { type: "array", items: [{ type: "string" }, { type: "number" }], additionalItems: false };
    expect(schemasAt(tuple, ["1"])).toEqual({ schemas: [{ type: "number" }] });
    expect(schemasAt(tuple, ["-1"])).toEqual({ schemas: [] });
    expect(schemasAt(tuple, ["2"])).toEqual({ forbidden: "attributes.2 is not allowed by the schema (additionalItems is false after the 2 items)" });
    expect(schemasAt({ type: "array", items: [{ type: "string" }] }, ["5"])).toEqual({ schemas: [] });
  });

  it("on a value that may be an object or an array, refuses only what both forbid, and knows nothing when both allow", () => {
    const untyped = { properties: { a: {} }, additionalProperties: false };
    expect(schemasAt(untyped, ["0"])).toEqual({ schemas: [] });
    expect(schemasAt(untyped, ["b"])).toEqual({ forbidden: "attributes.b is not defined by the schema (additionalProperties is false)" });
    expect(schemasAt({ ...untyped, items: { type: "string" } }, ["0"])).toEqual({ schemas: [{ type: "string" }] });
    expect(schemasAt({ type: ["object", "array"], properties: { "0": { type: "number" } }, items: { type: "string" } }, ["0"])).toEqual({ schemas: [] });
    expect(schemasAt({ ...untyped, items: false }, ["0"])).toEqual({ forbidden: "attributes.0 is not defined by the schema (additionalProperties is false)" });
  });

  it("reaching through object properties only (the identifier key), never enters an array", () => {
    expect(schemasAt(schema, ["tags", "0"], "object")).toEqual({
      forbidden: "attributes.tags.0 cannot be written: attributes.tags is array of string in the schema",
    });
    expect(schemasAt({ type: "object", properties: { "0": { type: "string" } } }, ["0"], "object")).toEqual({ schemas: [{ type: "string" }] });
  });
});
