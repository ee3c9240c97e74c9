// Unit tests of an entity type config checked against its schema: the
// indexed-type compatibility table and the lines the config checks produce
// (the schema walk itself: schema-paths.test.ts).
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/lib/errors";
import { assertConfigFits, indexTypeMismatch, schemaProblems, type TypeConfig } from "../../src/entity/entity-types/config";
import type { IndexedAttribute, IndexedType } from "../../src/entity/indexed-attributes";

const closed = { type: "object", additionalProperties: false, properties: { sku: { type: "string" } } };

function indexed(path: string[], type: IndexedType): IndexedAttribute {
  return { path, type, filterable: true, sortable: false, searchable: false };
}

describe("the indexed-type compatibility table", () => {
  const cases: [IndexedType, Record<string, unknown>, boolean][] = [
    ["text", { type: "string" }, true],
    ["text", { type: "number" }, true],
    ["text", { type: "boolean" }, true],
    ["text", { type: "array" }, false],
    ["text", { type: "object" }, false],
    ["numeric", { type: "number" }, true],
    ["numeric", { type: "integer" }, true],
    ["numeric", { type: "string", format: "decimal" }, true],
    ["numeric", { type: "string", format: "int64" }, true],
    ["numeric", { type: "string" }, false],
    ["numeric", { type: "string", format: "email" }, false],
    ["numeric", { type: "boolean" }, false],
    ["timestamptz", { type: "string", format: "date-time" }, true],
    ["timestamptz", { type: "string", format: "date" }, true],
    ["timestamptz", { type: "string" }, true],
    ["timestamptz", { type: "string", format: "email" }, false],
    ["timestamptz", { type: "number" }, false],
    ["timestamptz", { type: "integer" }, false],
    ["boolean", { type: "boolean" }, true],
    ["boolean", { type: "string" }, false],
    ["boolean", { type: "integer" }, false],
    ["text_array", { type: "array", items: { type: "string" } }, true],
    ["text_array", { type: "array" }, true],
    ["text_array", { type: "array", items: { type: "number" } }, false],
    ["text_array", { type: "string" }, false],
    // Several types: one that fits is enough, null aside; no type at all says nothing.
    ["numeric", { type: ["number", "null"] }, true],
    ["boolean", { type: ["string", "boolean"] }, true],
    ["text", { type: "null" }, false],
    ["timestamptz", { minimum: 3 }, true],
  ];
  it.each(cases)("%s on %j fits: %s", (type, node, fits) => {
    expect(indexTypeMismatch(type, node, "attributes.x") === undefined).toBe(fits);
  });

  it("says what was found and what the type reads", () => {
    expect(indexTypeMismatch("timestamptz", { type: "number" }, "attributes.created")).toBe(
      "timestamptz cannot index attributes.created (number in the schema); it reads a string without a format or with format date-time or date",
    );
    expect(indexTypeMismatch("numeric", { type: "string", format: "email" }, "attributes.code")).toBe(
      "numeric cannot index attributes.code (string with format email in the schema); it reads a number, an integer or a string with format decimal, number, integer, int32, int64, float or double",
    );
    expect(indexTypeMismatch("text_array", { type: "array", items: { type: "number" } }, "attributes.sizes")).toBe(
      "text_array cannot index attributes.sizes (array of number in the schema); it reads an array of strings",
    );
  });
});

describe("schemaProblems: every line at once", () => {
  const schema = {
    type: "object",
    additionalProperties: false,
    properties: {
      sku: { type: "string" },
      price: { type: "number" },
      active: { type: "boolean" },
      address: { type: "object", properties: { zip: { type: "string" } }, additionalProperties: false },
    },
  };

  it("names each refused path with its reason, in config order", () => {
    const config = {
      identifier_key: ["sku", "address.city", "region"],
      indexed_attributes: [
        indexed(["sku"], "text"),
        indexed(["price"], "timestamptz"),
        indexed(["attributes", "price"], "numeric"),
        indexed(["active"], "boolean"),
        indexed(["tags"], "text_array"),
      ],
    };
    expect(schemaProblems(config, schema)).toEqual([
      "config.identifier_key[1]: attributes.address.city is not defined by the schema (additionalProperties is false)",
      "config.identifier_key[2]: attributes.region is not defined by the schema (additionalProperties is false)",
      "config.indexed_attributes[1].type: timestamptz cannot index attributes.price (number in the schema); it reads a string without a format or with format date-time or date",
      'config.indexed_attributes[2].path: paths are relative to attributes; use ["price"]',
      "config.indexed_attributes[4].path: attributes.tags is not defined by the schema (additionalProperties is false)",
    ]);
  });

  it("catches the attributes prefix in identifier keys too, unless the schema has an attributes property", () => {
    expect(schemaProblems({ identifier_key: ["attributes.sku"], indexed_attributes: [indexed(["attributes"], "text")] }, { type: "object" })).toEqual([
      'config.identifier_key[0]: paths are relative to attributes; use "sku"',
      "config.indexed_attributes[0].path: paths are relative to attributes",
    ]);
    const nestedAttributes = { type: "object", properties: { attributes: { type: "object", properties: { sku: { type: "string" } } } } };
    expect(schemaProblems({ identifier_key: ["attributes.sku"], indexed_attributes: [indexed(["attributes", "sku"], "text")] }, nestedAttributes)).toEqual([]);
  });

  it("lets an indexed path reach an array item, as its index expression does, but not an identifier key, which is read through objects only", () => {
    const tagged = { type: "object", properties: { tags: { type: "array", items: { type: "string" } } } };
    expect(
      schemaProblems({ identifier_key: ["tags.0"], indexed_attributes: [indexed(["tags", "0"], "text"), indexed(["tags", "-1"], "numeric")] }, tagged),
    ).toEqual([
      "config.identifier_key[0]: attributes.tags.0 cannot be written: attributes.tags is array of string in the schema",
      "config.indexed_attributes[1].type: numeric cannot index attributes.tags.-1 (string in the schema); it reads a number, an integer or a string with format decimal, number, integer, int32, int64, float or double",
    ]);
  });

  it("has nothing to say about a config the schema allows", () => {
    expect(
      schemaProblems({ identifier_key: ["sku", "address.zip"], indexed_attributes: [indexed(["price"], "numeric"), indexed(["active"], "boolean")] }, schema),
    ).toEqual([]);
  });
});

describe("assertConfigFits", () => {
  it("throws VALIDATION_FAILED with the config's own rules and the schema lines together, beyond twenty counted", () => {
    const config: TypeConfig = {
      identifier_key: Array.from({ length: 10 }, (_, i) => `k${i}`),
      indexed_attributes: [...Array.from({ length: 15 }, (_, i) => indexed([`a${i}`], "text")), { ...indexed(["sku"], "numeric"), searchable: true }],
      sort_by_updated_at: false,
      name_search: false,
    };
    let thrown: unknown;
    try {
      assertConfigFits(config, closed);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const err = thrown as ApiError;
    expect(err.code).toBe("VALIDATION_FAILED");
    const lines = (err.details as { validation_errors: string[] }).validation_errors;
    // 1 rule line + 10 identifier lines + 15 unknown index paths + 1 type line = 27: twenty shown, seven counted.
    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe("config.indexed_attributes[15].searchable: only text attributes can be searchable");
    expect(lines[1]).toBe("config.identifier_key[0]: attributes.k0 is not defined by the schema (additionalProperties is false)");
    expect(lines[20]).toBe("... and 7 more errors");
  });

  it("passes a config that fits", () => {
    expect(() =>
      assertConfigFits({ identifier_key: ["sku"], indexed_attributes: [indexed(["sku"], "text")], sort_by_updated_at: false, name_search: false }, closed),
    ).not.toThrow();
  });
});
