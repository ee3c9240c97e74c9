// A schema's `$schema` picks the draft it is checked and validated by:
// draft-07, 2019-09, or 2020-12 when it names none.
import { describe, expect, it } from "vitest";
import { draftNamed, draftOf } from "../../src/lib/json-schema/drafts";
import { check } from "../../src/lib/validate";
import { schemaProblems } from "../../src/schema/schema-check";

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";
const DRAFT_2019 = "https://json-schema.org/draft/2019-09/schema";
const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";

describe("draftOf", () => {
  it("reads the root $schema, with or without its empty fragment, over http or https", () => {
    expect(draftOf({ $schema: DRAFT_07 })).toBe("7");
    expect(draftOf({ $schema: "https://json-schema.org/draft-07/schema" })).toBe("7");
    expect(draftOf({ $schema: DRAFT_2019 })).toBe("2019-09");
    expect(draftOf({ $schema: `${DRAFT_2019}#` })).toBe("2019-09");
    expect(draftOf({ $schema: DRAFT_2020 })).toBe("2020-12");
    expect(draftOf({ type: "string" })).toBe("2020-12");
    expect(draftOf(true)).toBe("2020-12");
    expect(draftNamed("http://json-schema.org/draft-04/schema#")).toBeUndefined();
  });
});

describe("each draft's meta-schema", () => {
  const tuple = { type: "array", items: [{ type: "string" }, { type: "integer" }], additionalItems: false };

  it("accepts tuple items under draft-07 and 2019-09, and refuses them under 2020-12", () => {
    expect(schemaProblems({ $schema: DRAFT_07, ...tuple })).toEqual([]);
    expect(schemaProblems({ $schema: DRAFT_2019, ...tuple })).toEqual([]);
    expect(schemaProblems(tuple)).toEqual(["schema.items: must be object or boolean, got array"]);
    expect(schemaProblems({ $schema: DRAFT_2020, ...tuple })).toEqual(["schema.items: must be object or boolean, got array"]);
  });

  it("refuses what the declared draft's meta-schema refuses, naming the path", () => {
    expect(schemaProblems({ $schema: DRAFT_07, properties: { n: { minLength: -1 } } })).toEqual(["schema.properties.n.minLength: -1 is less than 0"]);
    expect(schemaProblems({ $schema: DRAFT_2019, $defs: { a: { type: 1 } } })).toEqual([
      'schema.$defs.a.type: does not match any allowed shape (must be one of ["array","boolean","integer","null","number","object","string"] | must be array, got number)',
    ]);
    // draft-07's exclusiveMinimum is a number, as in 2020-12; draft-04's boolean form is refused.
    expect(schemaProblems({ $schema: DRAFT_07, exclusiveMinimum: true })).toEqual(["schema.exclusiveMinimum: must be number, got boolean"]);
  });

  it("refuses a $schema that names no draft the service validates by", () => {
    expect(schemaProblems({ $schema: "http://json-schema.org/draft-04/schema#", type: "string" }, "body.schema")).toEqual([
      `body.schema.$schema: names no draft this service validates by (${DRAFT_07}, ${DRAFT_2019}, ${DRAFT_2020}, or none for 2020-12)`,
    ]);
  });
});

describe("each draft's rules", () => {
  it("validates draft-07 tuple items and additionalItems", () => {
    const schema = { $schema: DRAFT_07, type: "array", items: [{ type: "string" }, { type: "integer" }], additionalItems: false };
    expect(check(schema, ["a", 1])).toEqual([]);
    expect(check(schema, ["a", "b", 3])).toEqual(["[1]: must be integer, got string", "[2]: is not allowed"]);
  });

  it("ignores the siblings of a $ref under draft-07 and applies them from 2019-09 on", () => {
    const body = { definitions: { s: { type: "string" } }, properties: { a: { $ref: "#/definitions/s", maxLength: 1 } } };
    expect(check({ $schema: DRAFT_07, ...body }, { a: "long" })).toEqual([]);
    expect(check({ $schema: DRAFT_2019, ...body }, { a: "long" })).toEqual(["a: String is too long (4 > 1)"]);
    expect(check(body, { a: "long" })).toEqual(["a: String is too long (4 > 1)"]);
  });

  it("follows 2019-09's $recursiveRef", () => {
    const tree = {
      $schema: DRAFT_2019,
      $recursiveAnchor: true,
      type: "object",
      properties: { v: { type: "integer" }, kids: { type: "array", items: { $recursiveRef: "#" } } },
    };
    expect(schemaProblems(tree)).toEqual([]);
    expect(check(tree, { v: 1, kids: [{ v: 2, kids: [] }] })).toEqual([]);
    expect(check(tree, { v: 1, kids: [{ v: "x" }] })).toEqual(["kids[0].v: must be integer, got string"]);
  });
});

describe("a $ref to a meta-schema the service holds", () => {
  it("resolves the 2020-12 meta-schema's own URI: the value must be a schema", () => {
    const schema = { type: "object", properties: { contract: { $ref: DRAFT_2020 } } };
    expect(schemaProblems(schema)).toEqual([]);
    expect(check(schema, { contract: { type: "string" } })).toEqual([]);
    expect(check(schema, { contract: { type: 12345 } })).toEqual([
      'contract.type: does not match any allowed shape (must be one of ["array","boolean","integer","null","number","object","string"] | must be array, got number)',
    ]);
  });

  it("resolves the draft-07 and 2019-09 meta-schemas too, and still refuses other documents", () => {
    expect(check({ $ref: DRAFT_07 }, { items: [{ type: "string" }] })).toEqual([]);
    expect(check({ $ref: DRAFT_2019 }, { minItems: -1 })).toEqual(["minItems: -1 is less than 0"]);
    expect(schemaProblems({ $ref: "https://json-schema.org/draft/2020-12/other" })).toEqual([
      'schema.$ref: "https://json-schema.org/draft/2020-12/other" does not resolve to a schema in this document',
    ]);
  });
});
