#!/usr/bin/env node
// The layering of src/ (docs/architecture.md, Layers): shared modules sit
// below the areas, and areas meet through services and schemas, never
// through each other's route modules. Run by `npm test` before the suites;
// exits 1 naming every import that breaks a rule.
//
//   1. src/lib/ imports no area (an area is a top-level folder of src/ that
//      serves a path prefix); it may use db/ and gateway/.
//   2. src/access/ imports neither workflows/ nor definition/ nor apps/: a
//      run, an app request and a REST call all build on it.
//   3. Only src/app.ts imports route modules (`routes.ts`, `*-routes.ts`)
//      of another folder.
//   4. src/apps/ reaches workflow actions through workflows/inline.ts only:
//      it imports nothing under workflows/actions/ or workflows/engine/.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The folders of src/ that are no area: what every area may build on. */
const FOUNDATIONS = new Set(["lib", "db", "gateway"]);
const ABOVE_ACCESS = new Set(["workflows", "definition", "apps"]);
const ROUTE_MODULE = /(^|[/-])routes\.ts$/;
/** The inside of the workflow engine, which apps/ reaches through workflows/inline.ts. */
const WORKFLOW_INSIDE = [path.join("workflows", "actions") + path.sep, path.join("workflows", "engine") + path.sep];

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return name.endsWith(".ts") ? [full] : [];
  });
}

function resolveImport(from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, path.join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"(\.{1,2}\/[^"]+)"|import\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g;

/** Every broken rule under `srcDir`, as `file: imports target (rule)` lines. */
export function layerViolations(srcDir) {
  const top = (file) => path.relative(srcDir, file).split(path.sep)[0];
  const problems = [];
  for (const file of sources(srcDir)) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(IMPORT)) {
      const target = resolveImport(file, m[1] ?? m[2]);
      if (!target || !target.startsWith(srcDir)) continue;
      const [fromTop, toTop] = [top(file), top(target)];
      const at = `${path.relative(srcDir, file)}: imports ${path.relative(srcDir, target)}`;
      const isArea = !FOUNDATIONS.has(toTop) && statSync(path.join(srcDir, toTop)).isDirectory();
      if (fromTop === "lib" && isArea) problems.push(`${at} (lib/ imports no area)`);
      if (fromTop === "access" && ABOVE_ACCESS.has(toTop)) problems.push(`${at} (access/ builds on no ${toTop}/)`);
      const targetPath = path.relative(srcDir, target);
      if (fromTop === "apps" && WORKFLOW_INSIDE.some((inside) => targetPath.startsWith(inside)))
        problems.push(`${at} (apps/ reaches workflow actions through workflows/inline.ts)`);
      if (ROUTE_MODULE.test(target) && path.dirname(target) !== path.dirname(file) && path.relative(srcDir, file) !== "app.ts") {
        problems.push(`${at} (only app.ts imports another folder's routes)`);
      }
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const srcDir = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "src"));
  const problems = layerViolations(srcDir);
  if (problems.length) {
    console.error(`Layering check failed (${problems.length}):\n${problems.map((p) => `  ${p}`).join("\n")}`);
    process.exit(1);
  }
  console.log("Layering check: no violations");
}
