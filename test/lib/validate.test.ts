// Unit tests of the `<path>: <reason>` lines behind 422 VALIDATION_FAILED.
import { describe, expect, it } from "vitest";
import { Validator, type Schema } from "@cfworker/json-schema";
import { check, formatErrors, LineCollector, renderPath, validate } from "../../src/lib/validate";
import { ApiError } from "../../src/lib/errors";

const order = {
  type: "object",
  required: ["customer", "items"],
  properties: {
    customer: { type: "string", minLength: 1 },
    items: {
      type: "array",
      items: {
        type: "object",
        required: ["sku", "price"],
        properties: { sku: { type: "string" }, price: { type: "number", minimum: 0 } },
      },
    },
  },
} as const;

describe("check: one `<path>: <reason>` line per failing path", () => {
  it("returns no lines for a valid value", () => {
    expect(check(order, { customer: "c", items: [{ sku: "a", price: 1 }] })).toEqual([]);
  });

  it("renders array positions as [n] and nested properties with dots", () => {
    const lines = check(order, {
      customer: "c",
      items: [
        { sku: "a", price: 1 },
        { sku: "b", price: 2 },
        { sku: "c", price: -1 },
        { sku: 4, price: "x" },
      ],
    });
    expect(lines).toEqual(["items[2].price: -1 is less than 0", "items[3].sku: must be string, got number", "items[3].price: must be number, got string"]);
  });

  it("reports a missing required property at its own path, not at its parent", () => {
    expect(check(order, {})).toEqual(["customer: is required", "items: is required"]);
    expect(check(order, { customer: "c", items: [{ sku: "a", price: 1 }, { price: 3 }] })).toEqual(["items[1].sku: is required"]);
  });

  it("names each unknown property under additionalProperties: false", () => {
    const schema = { type: "object", additionalProperties: false, properties: { name: { type: "string" } } } as const;
    expect(check(schema, { name: "x", colour: "red", size: 2 })).toEqual(["colour: is not allowed", "size: is not allowed"]);
  });

  it("renders the document root as (root)", () => {
    expect(check({ type: "object" }, 5)).toEqual(["(root): must be object, got number"]);
    expect(check({ type: "array", items: { type: "string" } }, [1])).toEqual(["[0]: must be string, got number"]);
  });

  it("puts several reasons for one path on that path's single line", () => {
    const schema = { type: "object", properties: { code: { type: "string", minLength: 5, pattern: "^z" } } } as const;
    const lines = check(schema, { code: "ab" });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe("code: String is too short (2 < 5); must match the pattern ^z");
  });

  it("renders const and enum failures with the expected values", () => {
    const schema = { type: "object", properties: { g: { const: "client_credentials" }, e: { enum: ["a", "b"] } } } as const;
    expect(check(schema, { g: "password", e: "c" })).toEqual(['g: must equal "client_credentials"', 'e: must be one of ["a","b"]']);
  });
});

describe("check: a pattern failure names the pattern", () => {
  it("names the pattern the value failed", () => {
    const schema = { type: "object", properties: { name: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" } } } as const;
    expect(check(schema, { name: "1st" })).toEqual(["name: must match the pattern ^[A-Za-z_][A-Za-z0-9_]*$"]);
    expect(check(schema, { name: "first_1" })).toEqual([]);
  });

  it("finds the pattern behind a $ref, under additionalProperties and items, and under a patternProperties key with / and ~", () => {
    const schema = {
      $defs: { code: { type: "string", pattern: "^[A-Z]{3}$" } },
      type: "object",
      properties: { c: { $ref: "#/$defs/code" }, list: { type: "array", items: { $ref: "#/$defs/code" } } },
      patternProperties: { "^x/~": { pattern: "^ok$" } },
      additionalProperties: { pattern: "^[0-9]+$" },
    } as const;
    expect(check(schema, { c: "ab", list: ["ABC", "abc"], "x/~1": "no", n: "x" })).toEqual([
      "c: must match the pattern ^[A-Z]{3}$",
      "list[1]: must match the pattern ^[A-Z]{3}$",
      "x/~1: must match the pattern ^ok$",
      "n: must match the pattern ^[0-9]+$",
    ]);
  });

  it("names each pattern of an alternative's branches, and each of two patterns at one path", () => {
    expect(check({ anyOf: [{ type: "string", pattern: "^a" }, { type: "integer" }] }, "b")).toEqual([
      "(root): does not match any allowed shape (must match the pattern ^a | must be integer, got string)",
    ]);
    expect(check({ allOf: [{ pattern: "^a" }, { pattern: "z$" }] }, "b")).toEqual(["(root): must match the pattern ^a; must match the pattern z$"]);
  });

  it("cuts a pattern longer than 200 characters", () => {
    const long = `^${"x".repeat(250)}$`;
    expect(check({ type: "string", pattern: long }, "y")).toEqual([`(root): must match the pattern ${long.slice(0, 200)}…`]);
  });
});

describe("check: multi-shape fields (anyOf / oneOf) give ONE line", () => {
  it("merges the reasons of every anyOf alternative into one line for the field", () => {
    const schema = { type: "object", properties: { v: { anyOf: [{ type: "string" }, { type: "integer", minimum: 5 }] } } } as const;
    expect(check(schema, { v: 1 })).toEqual(["v: does not match any allowed shape (must be string, got number | 1 is less than 5)"]);
    expect(check(schema, { v: true })).toEqual(["v: does not match any allowed shape (must be string, got boolean | must be integer, got boolean)"]);
  });

  it("merges oneOf alternatives the same way", () => {
    const schema = { type: "object", properties: { w: { oneOf: [{ type: "string", maxLength: 2 }, { type: "number" }] } } } as const;
    expect(check(schema, { w: "abc" })).toEqual(["w: does not match any allowed shape (String is too long (3 > 2) | must be number, got string)"]);
  });

  it("reports a oneOf that matches more than one alternative", () => {
    const schema = { type: "object", properties: { n: { oneOf: [{ type: "integer" }, { type: "number" }] } } } as const;
    expect(check(schema, { n: 3 })).toEqual(["n: does not match exactly one subschema (2 matches)"]);
  });

  it("keeps errors found deeper inside an alternative on the field's line, with their relative path", () => {
    const objectOrString = {
      type: "object",
      properties: { v: { anyOf: [{ type: "object", required: ["k"], properties: { a: { type: "string" } } }, { type: "string" }] } },
    } as const;
    expect(check(objectOrString, { v: { a: 1 } })).toEqual([
      "v: does not match any allowed shape (k is required; a: must be string, got number | must be string, got object)",
    ]);

    const listOrInteger = { type: "object", properties: { v: { oneOf: [{ type: "array", items: { type: "string" } }, { type: "integer" }] } } } as const;
    expect(check(listOrInteger, { v: ["a", 2] })).toEqual([
      "v: does not match any allowed shape ([1]: must be string, got number | must be integer, got array)",
    ]);
  });

  it("does not swallow another keyword's error at the same path as an alternative", () => {
    const schema = {
      type: "object",
      properties: { tags: { type: "array", maxItems: 1, anyOf: [{ items: { type: "string" } }, { items: { type: "integer" } }] } },
    } as const;
    const lines = check(schema, { tags: [true, false] });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^tags: /);
    expect(lines[0]).toContain(
      "does not match any allowed shape ([0]: must be string, got boolean; [1]: must be string, got boolean | [0]: must be integer, got boolean; [1]: must be integer, got boolean)",
    );
    expect(lines[0]).toContain("Array has too many items (2 > 1)");
  });

  it("merges a root-level alternative into one (root) line", () => {
    expect(check({ anyOf: [{ type: "string" }, { type: "integer" }] }, null)).toEqual([
      "(root): does not match any allowed shape (must be string, got null | must be integer, got null)",
    ]);
  });

  it("merges each array element's alternatives into that element's line", () => {
    const schema = { type: "array", items: { anyOf: [{ type: "string" }, { type: "integer" }] } } as const;
    expect(check(schema, ["ok", 1.5, 3, null])).toEqual([
      "[1]: does not match any allowed shape (must be string, got number | must be integer, got number)",
      "[3]: does not match any allowed shape (must be string, got null | must be integer, got null)",
    ]);
  });
});

describe("check: at most twenty lines", () => {
  const ints = { type: "array", items: { type: "integer" } } as const;

  it("gives exactly twenty lines when twenty paths fail", () => {
    const lines = check(
      ints,
      Array.from({ length: 20 }, (_, i) => `s${i}`),
    );
    expect(lines).toHaveLength(20);
    expect(lines[19]).toBe("[19]: must be integer, got string");
    expect(lines.some((l) => l.startsWith("..."))).toBe(false);
  });

  it("gives twenty lines and a final `... and N more errors` line beyond twenty", () => {
    const lines = check(
      ints,
      Array.from({ length: 25 }, (_, i) => `s${i}`),
    );
    expect(lines).toHaveLength(21);
    expect(lines.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => `[${i}]: must be integer, got string`));
    expect(lines[20]).toBe("... and 5 more errors");
  });

  it("counts failing paths, not raw validator errors", () => {
    // 30 objects each failing two keywords at one path: 30 lines' worth, so 10 more.
    const schema = { type: "array", items: { type: "string", minLength: 3, pattern: "^z" } } as const;
    const lines = check(
      schema,
      Array.from({ length: 30 }, () => "a"),
    );
    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe("[0]: String is too short (1 < 3); must match the pattern ^z");
    expect(lines[20]).toBe("... and 10 more errors");
  });
});

describe("LineCollector: the twenty-line rule for lines found one at a time", () => {
  it("keeps the first twenty lines and counts the rest exactly", () => {
    const collector = new LineCollector();
    for (let i = 0; i < 30; i++) collector.add([`a${i}: x`, `b${i}: y`]);
    const lines = collector.lines();
    expect(lines).toHaveLength(21);
    expect(lines.slice(0, 3)).toEqual(["a0: x", "b0: y", "a1: x"]);
    expect(lines[19]).toBe("b9: y");
    expect(lines[20]).toBe("... and 40 more errors");
  });

  it("gives the lines as they are up to twenty", () => {
    const collector = new LineCollector();
    collector.add(Array.from({ length: 20 }, (_, i) => `p${i}: x`));
    expect(collector.lines()).toEqual(Array.from({ length: 20 }, (_, i) => `p${i}: x`));
  });
});

describe("formatErrors and renderPath", () => {
  it("formats raw validator output units the same way check does", () => {
    const result = new Validator(order as unknown as Schema, "2020-12", false).validate({ customer: "", items: [{ sku: "a" }] });
    expect(result.valid).toBe(false);
    expect(formatErrors(result.errors)).toEqual(["customer: String is too short (0 < 1)", "items[0].price: is required"]);
  });

  it("drops wrapper errors (properties, items, allOf) and keeps only the leaf reason", () => {
    const schema = { allOf: [{ type: "object", properties: { a: { type: "array", items: { type: "integer" } } } }] } as const;
    expect(check(schema, { a: [1, "x"] })).toEqual(["a[1]: must be integer, got string"]);
  });

  it("renders JSON pointers: escapes undone, indexes bracketed, root named", () => {
    expect(renderPath("#")).toBe("(root)");
    expect(renderPath("#/data/3/name")).toBe("data[3].name");
    expect(renderPath("#/0/1")).toBe("[0][1]");
    expect(renderPath("#/a~1b/c~0d")).toBe("a/b.c~d");
  });
});

describe("validate", () => {
  it("returns the value when valid", () => {
    const value = { customer: "c", items: [] };
    expect(validate(order, value)).toBe(value);
  });

  it("throws 422 VALIDATION_FAILED carrying the lines in validation_errors and errors", () => {
    let thrown: unknown;
    try {
      validate(order, { items: [{ sku: "a", price: -2 }] });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const err = thrown as ApiError;
    expect(err.status).toBe(422);
    expect(err.code).toBe("VALIDATION_FAILED");
    const lines = ["customer: is required", "items[0].price: -2 is less than 0"];
    expect(err.details).toEqual({ validation_errors: lines, errors: lines });
  });
});

describe("check: schemas from tenants", () => {
  it("evaluates patterns in linear time, for pattern, patternProperties and propertyNames", () => {
    const poison = `${"a".repeat(32)}!`;
    const start = performance.now();
    expect(check({ type: "string", pattern: "^(a+)+$" }, poison)).toEqual(["(root): must match the pattern ^(a+)+$"]);
    expect(check({ type: "object", patternProperties: { "^(a+)+$": { type: "integer" } } }, { [poison]: "x", aaa: "y" })).toEqual([
      "aaa: must be integer, got string",
    ]);
    expect(check({ type: "object", propertyNames: { pattern: "^(a+)+$" } }, { [poison]: 1 })).toEqual([`${poison}: must match the pattern ^(a+)+$`]);
    expect(performance.now() - start).toBeLessThan(200);
  });

  it("answers the validator's url format in linear time", () => {
    const start = performance.now();
    expect(check({ type: "string", format: "url" }, `http://${"a".repeat(40)} `)).toEqual(['(root): String does not match format "url"']);
    expect(performance.now() - start).toBeLessThan(200);
    expect(check({ type: "string", format: "url" }, "https://example.com/a?b=1")).toEqual([]);
    expect(check({ type: "string", format: "url" }, "mailto:a@example.com")).toEqual(['(root): String does not match format "url"']);
  });

  it("takes the boolean schemas", () => {
    expect(check(true, { any: "thing" })).toEqual([]);
    expect(check(false, 1)).toEqual(["(root): is not allowed"]);
  });

  it("turns a schema it cannot evaluate into 422 UNPROCESSABLE_ENTITY instead of a crash", () => {
    for (const [schema, message] of [
      [{ properties: { a: { $ref: "#/nowhere" } } }, 'The schema cannot be evaluated: Unresolved $ref "#/nowhere".'],
      [{ pattern: "(a)\\1" }, 'The schema cannot be evaluated: pattern "(a)\\\\1" uses what the linear-time regex engine cannot run: backreferences'],
    ] as const) {
      let thrown: unknown;
      try {
        check(schema, { a: 1 });
        check(schema, "aa");
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(ApiError);
      expect((thrown as ApiError).code).toBe("UNPROCESSABLE_ENTITY");
      expect((thrown as ApiError).message).toBe(message);
    }
  });
});
