// The command catalog and the source producers against the publish schema:
// every kind a spec may publish has one declaration reading that kind's
// fields from the publish schema, and every producer key one entry.
import { describe, expect, it } from "vitest";
import { COMMAND_FIELDS, COMMAND_KINDS, SPEC_DOCUMENT_SCHEMA } from "../../src/definition/language/spec-schema";
import { COMMANDS } from "../../src/apps/render/commands/catalog";
import { PRODUCERS } from "../../src/apps/render/sources/producers";

const sorted = (values: Iterable<string>) => [...values].sort();

describe("the command catalog", () => {
  it("declares every command kind of the publish schema, and nothing else", () => {
    expect(sorted(Object.keys(COMMANDS))).toEqual(sorted(COMMAND_KINDS));
    expect(sorted(Object.keys(COMMANDS))).toEqual(sorted(SPEC_DOCUMENT_SCHEMA.$defs.command.properties.kind.enum));
  });

  it("keeps each declaration under its kind, with the publish schema's fields of that kind", () => {
    for (const [kind, module] of Object.entries(COMMANDS)) {
      expect(module.kind).toBe(kind);
      expect(module.fields).toBe(COMMAND_FIELDS[module.kind]);
    }
  });

  it("accepts at publish exactly the fields the declarations read, beside the ones every command has", () => {
    const declared = new Set(Object.values(COMMANDS).flatMap((module) => Object.keys(module.fields.properties)));
    const published = Object.keys(SPEC_DOCUMENT_SCHEMA.$defs.command.properties).filter(
      (key) => !["kind", "stepId", "if", "onSuccess", "onError"].includes(key),
    );
    expect(sorted(published)).toEqual(sorted(declared));
  });
});

describe("the source producers", () => {
  it("has one entry per producer a published source may name", () => {
    const published = SPEC_DOCUMENT_SCHEMA.$defs.dataSource.oneOf.flatMap((branch) => branch.required);
    expect(sorted(Object.keys(PRODUCERS))).toEqual(sorted(published));
  });
});
