// The config an action's `execute` reads is typed from its schema: these
// assertions are checked by the compiler (`npx tsc --noEmit`); the runtime
// ones pin the camelCase renaming the types mirror.
import { describe, expect, expectTypeOf, it } from "vitest";
import type { ConfigOf } from "../../src/workflows/actions/action";
import type { CamelKey } from "../../src/lib/rest-body";
import { camelKey, camelSchema } from "../../src/lib/rest-body";
import type { chunkPdf } from "../../src/workflows/actions/pdf/chunk-pdf";
import type { downloadTempFile } from "../../src/workflows/actions/files/download-temp-file";
import type { syncRelationships } from "../../src/workflows/actions/entity/sync-relationships";
import type { removeEntities } from "../../src/workflows/actions/entity/remove-entities";
import { catalog } from "../../src/workflows/actions/catalog";
import { check } from "../../src/lib/validate";

describe("action config types", () => {
  it("follow the literal schema: required, optional and enum fields", () => {
    expectTypeOf<ConfigOf<typeof chunkPdf>>().toEqualTypeOf<{ tempFileId: string; pagesPerChunk: number }>();
    expectTypeOf<ConfigOf<typeof downloadTempFile>>().toEqualTypeOf<{ tempFileId: string; as: "text" | "base64"; maxTextBytes?: number }>();
    // @ts-expect-error a field the schema does not declare
    const wrong: ConfigOf<typeof chunkPdf> = { tempFileId: "x", pagesPerChunk: 1, pages: 2 };
    // @ts-expect-error a value outside the enum
    const outside: ConfigOf<typeof downloadTempFile> = { tempFileId: "x", as: "binary" };
    expect([wrong, outside]).toHaveLength(2);
  });

  it("of an entity action are the REST body's, camelCased", () => {
    expectTypeOf<ConfigOf<typeof removeEntities>>().toEqualTypeOf<{ ids: string[] }>();
    type Sync = ConfigOf<typeof syncRelationships>;
    expectTypeOf<Sync["entityId"]>().toEqualTypeOf<string>();
    expectTypeOf<Sync["targetIds"]>().toEqualTypeOf<string[]>();
    expectTypeOf<Sync["side"]>().toEqualTypeOf<"from" | "to" | undefined>();
    // @ts-expect-error the snake_case name is not the config's
    const snake: Sync = { entity_id: "e", targetIds: [], ruleName: "r" };
    expect(snake).toBeDefined();
  });

  it("rename keys as camelKey does", () => {
    expectTypeOf<CamelKey<"type_name">>().toEqualTypeOf<"typeName">();
    expectTypeOf<CamelKey<"a__b_1c">>().toEqualTypeOf<"a_B1c">();
    expectTypeOf<CamelKey<"x_Y">>().toEqualTypeOf<"x_Y">();
    expect(["type_name", "a__b_1c", "x_Y"].map(camelKey)).toEqual(["typeName", "a_B1c", "x_Y"]);
    const schema = { type: "object", required: ["rule_id"], properties: { rule_id: { type: "string" }, on_x: { enum: ["keep_me"] } } } as const;
    const renamed = camelSchema(schema);
    expectTypeOf(renamed.required).toEqualTypeOf<readonly ["ruleId"]>();
    expectTypeOf(renamed.properties.onX.enum).toEqualTypeOf<readonly ["keep_me"]>();
    expect(renamed).toEqual({ type: "object", required: ["ruleId"], properties: { ruleId: { type: "string" }, onX: { enum: ["keep_me"] } } });
  });
});

describe("action config schemas", () => {
  it("are closed: every action refuses a key it does not know, in each branch of its schema", () => {
    const open = Object.entries(catalog).filter(
      ([, module]) => !check(module.configSchema, { notAField: 1 }, "config").includes("config.notAField: is not allowed"),
    );
    expect(open.map(([name]) => name)).toEqual([]);
    expect(Object.keys(catalog).length).toBeGreaterThan(30);
    expect(check(catalog.queryEntity!.configSchema, { typeName: "Order", aggregates: [{ fn: "count", as: "n" }], notAField: 1 }, "config")).toContain(
      "config.notAField: is not allowed",
    );
    expect(
      check(catalog.http!.configSchema, { url: "https://x.example", method: "POST", auth: { type: "bearer", token: "t" }, notAField: 1 }, "config"),
    ).toEqual(["config.notAField: is not allowed"]);
  });
});
