// scripts/check-layers.mjs: the layering rules, on a tree made for the test
// and on the real src/.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error plain ESM script without types
import { layerViolations } from "../../scripts/check-layers.mjs";

const root = mkdtempSync(path.join(tmpdir(), "layers-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  const src = path.join(root, crypto.randomUUID(), "src");
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(src, name)), { recursive: true });
    writeFileSync(path.join(src, name), text);
  }
  return src;
}

describe("check-layers", () => {
  it("names lib/ importing an area, access/ importing workflows/, apps/ importing the workflow engine's inside, and a route module imported from another folder", () => {
    const src = tree({
      "lib/a.ts": 'import { b } from "../workflows/b";\nimport { c } from "../db/c";\nexport const a = b + c;\n',
      "db/c.ts": "export const c = 1;\n",
      "workflows/b.ts": "export const b = 1;\n",
      "access/d.ts": 'import type { B } from "../workflows/types";\nexport type D = B;\n',
      "workflows/types.ts": "export type B = number;\n",
      "entity/routes.ts": "export const entityRoutes = [];\n",
      "entity/schemas.ts": "export const body = {};\n",
      "workflows/actions/e.ts":
        'import { entityRoutes } from "../../entity/routes";\nimport { body } from "../../entity/schemas";\nexport const e = [entityRoutes, body];\n',
      "app.ts": 'import { entityRoutes } from "./entity/routes";\nexport const all = entityRoutes;\n',
      "workflows/engine/walk.ts": "export const walk = 1;\n",
      "workflows/inline.ts": 'import { walk } from "./engine/walk";\nexport const inline = walk;\n',
      "apps/render/commands/run.ts":
        'import { inline } from "../../../workflows/inline";\nimport { walk } from "../../../workflows/engine/walk";\nexport const run = inline + walk;\n',
    });
    expect(layerViolations(src).sort()).toEqual([
      "access/d.ts: imports workflows/types.ts (access/ builds on no workflows/)",
      "apps/render/commands/run.ts: imports workflows/engine/walk.ts (apps/ reaches workflow actions through workflows/inline.ts)",
      "lib/a.ts: imports workflows/b.ts (lib/ imports no area)",
      "workflows/actions/e.ts: imports entity/routes.ts (only app.ts imports another folder's routes)",
    ]);
  });

  it("finds nothing wrong in the service's own src/", () => {
    expect(layerViolations(path.resolve("src"))).toEqual([]);
  });
});
