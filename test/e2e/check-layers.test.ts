// scripts/check-layers.mjs: the layering rules, on trees made for the test
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
  it("passes foundations in order, areas in a line and a composition root that imports them all", () => {
    const src = tree({
      "lib/errors.ts": "export class ApiError {}\n",
      "lib/principal.ts": 'import { ApiError } from "./errors";\nexport type Principal = ApiError;\n',
      "db/client.ts": 'import { ApiError } from "../lib/errors";\nexport const db = ApiError;\n',
      "gateway/route.ts":
        'import { db } from "../db/client";\nimport type { Principal } from "../lib/principal";\nexport const route = (p?: Principal) => db;\n',
      "access/permissions.ts": 'import { db } from "../db/client";\nexport const permissions = db;\n',
      "auth/authenticate.ts":
        'import { permissions } from "../access/permissions";\nimport { route } from "../gateway/route";\nexport const authenticate = [permissions, route];\n',
      "entity/routes.ts": 'import { route } from "../gateway/route";\nexport const entityRoutes = [route];\n',
      "mount.ts": 'import { authenticate } from "./auth/authenticate";\nexport const mount = authenticate;\n',
      "app.ts": 'import { entityRoutes } from "./entity/routes";\nimport { mount } from "./mount";\nexport const app = [entityRoutes, mount];\n',
      "index.ts": 'export { app } from "./app";\n',
    });
    expect(layerViolations(src)).toEqual([]);
  });

  it("refuses a cycle through three folders, made of a re-export, a dynamic import and a bare import, naming one import per edge", () => {
    const src = tree({
      "entity/a.ts": 'export * from "../schema/b";\n',
      "schema/b.ts": 'export const load = () => import("../events/c");\n',
      "events/c.ts": 'import "../entity/d";\nexport const c = 1;\n',
      "entity/d.ts": "export const d = 1;\n",
    });
    expect(layerViolations(src)).toEqual([
      "folders in a cycle: entity/ -> schema/ -> events/ -> entity/\n" +
        "    entity/a.ts: imports schema/b.ts\n" +
        "    schema/b.ts: imports events/c.ts\n" +
        "    events/c.ts: imports entity/d.ts",
    ]);
  });

  it("names the whole set of folders that reach each other when the cycle it prints leaves some out", () => {
    const src = tree({
      "apps/a.ts": 'import { d } from "../definition/d";\nexport const a = d;\n',
      "definition/d.ts": 'import { a } from "../apps/a";\nimport { w } from "../workflows/w";\nexport const d = [a, w];\n',
      "workflows/w.ts": 'import { d } from "../definition/d";\nexport const w = d;\n',
    });
    expect(layerViolations(src)).toEqual([
      "folders in a cycle: apps/ -> definition/ -> apps/ (one of the cycles among apps/, definition/ and workflows/)\n" +
        "    apps/a.ts: imports definition/d.ts\n" +
        "    definition/d.ts: imports apps/a.ts",
    ]);
  });

  it("refuses a cycle made of type-only imports", () => {
    const src = tree({
      "access/grants.ts": 'import type {\n  Caller,\n  Token,\n} from "../auth/credentials";\nexport type Grant = Caller | Token;\n',
      "auth/credentials.ts": 'import type { Grant } from "../access/grants";\nexport type Caller = Grant[];\nexport type Token = string;\n',
    });
    expect(layerViolations(src)).toEqual([
      "folders in a cycle: access/ -> auth/ -> access/\n    access/grants.ts: imports auth/credentials.ts\n    auth/credentials.ts: imports access/grants.ts",
    ]);
  });

  it("refuses a foundation importing upward: lib/ anything but lib/, db/ an area, gateway/ an area", () => {
    const src = tree({
      "lib/errors.ts": "export class ApiError {}\n",
      "lib/route.ts": 'import { authenticate } from "../gateway/authenticate";\nexport const route = authenticate;\n',
      "gateway/authenticate.ts": 'import { ApiError } from "../lib/errors";\nexport const authenticate = ApiError;\n',
      "gateway/request-context.ts":
        'import { db } from "../db/client";\nimport { publishEvents } from "../events/outbox";\nexport const ctx = [db, publishEvents];\n',
      "db/client.ts":
        'import type { EntityAccess } from "../entity/access";\nimport { ApiError } from "../lib/errors";\nexport const db = (a?: EntityAccess) => ApiError;\n',
      "entity/access.ts": "export type EntityAccess = string;\n",
      "events/outbox.ts": "export const publishEvents = 1;\n",
    });
    expect(layerViolations(src)).toEqual([
      "db/client.ts: imports entity/access.ts (db/ imports only lib/)",
      "gateway/request-context.ts: imports events/outbox.ts (gateway/ imports only lib/ and db/)",
      "lib/route.ts: imports gateway/authenticate.ts (lib/ imports only lib/)",
      "folders in a cycle: db/ -> lib/ -> gateway/ -> db/\n" +
        "    db/client.ts: imports lib/errors.ts\n" +
        "    lib/route.ts: imports gateway/authenticate.ts\n" +
        "    gateway/request-context.ts: imports db/client.ts",
    ]);
  });

  it("refuses an import of the composition root from any folder, while its own modules import each other", () => {
    const src = tree({
      "app.ts": 'import { entityRoutes } from "./entity/routes";\nimport { mount } from "./mount";\nexport const app = [entityRoutes, mount];\n',
      "mount.ts": "export const mount = 1;\n",
      "index.ts": 'import { app } from "./app";\nexport default app;\n',
      "gateway/env.ts": 'import type { app } from "../app";\nexport type HonoEnv = typeof app;\n',
      "entity/routes.ts": 'export const entityRoutes = () => import("../mount");\n',
    });
    expect(layerViolations(src)).toEqual([
      "entity/routes.ts: imports mount.ts (nothing imports the composition root)",
      "gateway/env.ts: imports app.ts (nothing imports the composition root)",
    ]);
  });

  it("names access/ importing workflows/, apps/ importing the workflow engine's inside, and a route module imported from another folder", () => {
    const src = tree({
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
    expect(layerViolations(src)).toEqual([
      "access/d.ts: imports workflows/types.ts (access/ builds on no workflows/)",
      "apps/render/commands/run.ts: imports workflows/engine/walk.ts (apps/ reaches workflow actions through workflows/inline.ts)",
      "workflows/actions/e.ts: imports entity/routes.ts (only the composition root imports another folder's routes)",
    ]);
  });

  it("holds the apps' seams: uploads reach nothing of the render, render parts meet through contracts.ts only", () => {
    const src = tree({
      "apps/render/contracts.ts": "export type A = 1;\n",
      "apps/render/pages/a.ts": 'import type { A } from "../contracts";\nimport { b } from "./b";\nexport const a: A | number = b;\n',
      "apps/render/pages/b.ts": "export const b = 1;\n",
      "apps/render/commands/c.ts": 'import { b } from "../pages/b";\nimport type { A } from "../contracts";\nexport const c: A | number = b;\n',
      "apps/render/sources/s.ts": 'import { x } from "../answer";\nexport const s = x;\n',
      "apps/render/answer.ts": 'import { b } from "./pages/b";\nexport const x = b;\n',
      "apps/render/identity/i.ts": 'import type { A } from "../contracts";\nexport type I = A;\n',
      "apps/uploads/u.ts": 'import type { A } from "../render/contracts";\nexport type U = A;\n',
      "apps/config/owner.ts": "export const o = 1;\n",
      "apps/uploads/v.ts": 'import { o } from "../config/owner";\nexport const v = o;\n',
    });
    expect(layerViolations(src)).toEqual([
      "apps/render/commands/c.ts: imports apps/render/pages/b.ts (apps/render/commands/ reaches the rest of the render only through apps/render/contracts.ts)",
      "apps/render/sources/s.ts: imports apps/render/answer.ts (apps/render/sources/ reaches the rest of the render only through apps/render/contracts.ts)",
      "apps/uploads/u.ts: imports apps/render/contracts.ts (apps/uploads/ imports nothing of apps/render/)",
    ]);
    const leaky = tree({
      "apps/render/contracts.ts": 'import { b } from "./pages/b";\nexport const A = b;\n',
      "apps/render/pages/b.ts": "export const b = 1;\n",
    });
    expect(layerViolations(leaky)).toEqual([
      "apps/render/contracts.ts: imports apps/render/pages/b.ts (apps/render/contracts.ts imports nothing of apps/render/)",
    ]);
  });

  it("finds nothing wrong in the service's own src/", () => {
    expect(layerViolations(path.resolve("src"))).toEqual([]);
  });
});
