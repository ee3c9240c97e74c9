#!/usr/bin/env node
// The layering of src/ (docs/architecture.md, Layers). Run by `npm test`
// before the suites; exits 1 naming everything that breaks a rule.
//
// The check reads the import graph of every module under src/: static
// imports and re-exports (type-only ones too, which tie folders together as
// much as any), side-effect imports and dynamic import(), each resolved to
// its file. It then collapses the graph to folders: each top-level folder of
// src/ is one node, and the modules directly in src/ (app.ts, index.ts,
// mount.ts) are the composition root, which builds on everything.
//
//   1. No cycle between folders, however many folders it runs through: each
//      set of folders that reach each other is named by one cycle through it,
//      with one import for each of its edges, which says what to move.
//   2. The foundations keep their order: lib/ imports only lib/; db/ only
//      lib/; gateway/ only lib/ and db/.
//   3. Nothing imports the composition root.
//   4. access/ imports neither workflows/ nor definition/ nor apps/: a run,
//      an app request and a REST call all build on it.
//   5. Only the composition root imports route modules (`routes.ts`,
//      `*-routes.ts`) of another folder.
//   6. apps/ reaches workflow actions through workflows/inline.ts only: it
//      imports nothing under workflows/actions/ or workflows/engine/.
//   7. apps/uploads/ imports nothing of apps/render/: an upload is received
//      without a render (its config scopes through apps/config/owner.ts, its
//      CORS through apps/host/cors.ts).
//   8. The parts of apps/render/ meet only through apps/render/contracts.ts.
//      A part is a subfolder of apps/render/ (identity/, pages/, sources/,
//      commands/; a new subfolder is a new part). A part imports its own
//      modules, contracts.ts, and nothing else of apps/render/. The
//      top-level render modules put the parts together and may import any of
//      them; contracts.ts imports nothing of apps/render/, so no part reaches
//      another through it.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The foundations, bottom up, each with the folders below it that it may import besides its own. */
const FOUNDATIONS = new Map([
  ["lib", []],
  ["db", ["lib"]],
  ["gateway", ["lib", "db"]],
]);
const ABOVE_ACCESS = new Set(["workflows", "definition", "apps"]);
const ROUTE_MODULE = /(^|[/-])routes\.ts$/;
/** The inside of the workflow engine, which apps/ reaches through workflows/inline.ts. */
const WORKFLOW_INSIDE = ["workflows/actions/", "workflows/engine/"];
const RENDER = "apps/render/";
const CONTRACTS = "apps/render/contracts.ts";

/** The top-level folder of a path relative to src/, or undefined for a module of the composition root. */
const folder = (file) => (file.includes("/") ? file.slice(0, file.indexOf("/")) : undefined);
/** `a/`, `a/ and b/`, `a/, b/ and c/`. */
function list(folders) {
  const names = folders.map((f) => `${f}/`);
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** The part of apps/render/ a module belongs to (its subfolder); undefined for a top-level render module or one outside the render. */
function renderPart(file) {
  if (!file.startsWith(RENDER)) return undefined;
  const rest = file.slice(RENDER.length);
  return rest.includes("/") ? rest.slice(0, rest.indexOf("/")) : undefined;
}

/**
 * Rules on one import each: given the importing module and the imported one
 * (paths relative to src/, "/"-separated), why the import breaks the rule,
 * or nothing.
 */
const IMPORT_RULES = [
  (from, to) => {
    const [a, b] = [folder(from), folder(to)];
    const below = FOUNDATIONS.get(a);
    if (below && b !== undefined && b !== a && !below.includes(b)) return `${a}/ imports only ${list(below.length ? below : [a])}`;
  },
  (from, to) => {
    if (folder(to) === undefined && folder(from) !== undefined) return "nothing imports the composition root";
  },
  (from, to) => {
    if (folder(from) === "access" && ABOVE_ACCESS.has(folder(to))) return `access/ builds on no ${folder(to)}/`;
  },
  (from, to) => {
    if (ROUTE_MODULE.test(to) && path.posix.dirname(to) !== path.posix.dirname(from) && folder(from) !== undefined)
      return "only the composition root imports another folder's routes";
  },
  (from, to) => {
    if (folder(from) === "apps" && WORKFLOW_INSIDE.some((inside) => to.startsWith(inside))) return "apps/ reaches workflow actions through workflows/inline.ts";
  },
  // How the parts of one area meet.
  (from, to) => {
    if (from.startsWith("apps/uploads/") && to.startsWith(RENDER)) return "apps/uploads/ imports nothing of apps/render/";
  },
  (from, to) => {
    if (!from.startsWith(RENDER) || !to.startsWith(RENDER) || to === from) return;
    if (from === CONTRACTS) return "apps/render/contracts.ts imports nothing of apps/render/";
    const part = renderPart(from);
    if (part === undefined || renderPart(to) === part || to === CONTRACTS) return;
    return `apps/render/${part}/ reaches the rest of the render only through apps/render/contracts.ts`;
  },
];

function sources(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) return sources(full);
      return name.endsWith(".ts") ? [full] : [];
    });
}

function resolveImport(from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, base.replace(/\.js$/, ".ts"), path.join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

// `import x, { y } from`, `import type { T } from`, `export * from`, `export { a } from`;
// a bare `import "./x"`; `import("./x")`. The names between the keyword and
// `from` are words, braces, commas and `*` only, so a match never runs into
// the next statement.
const IMPORT =
  /^[ \t]*(?:import|export)\b[\w$*{},\s]*?\bfrom\s*["'](\.{1,2}\/[^"']+)["']|^[ \t]*import\s*["'](\.{1,2}\/[^"']+)["']|\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/gm;

/** Every import from a module of `srcDir` to another, as `{ from, to }` paths relative to it, in file order. */
function importsOf(srcDir) {
  const relative = (file) => path.relative(srcDir, file).split(path.sep).join("/");
  const edges = [];
  for (const file of sources(srcDir)) {
    for (const m of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const target = resolveImport(file, m[1] ?? m[2] ?? m[3]);
      if (!target) continue;
      const to = relative(target);
      if (!to.startsWith("../")) edges.push({ from: relative(file), to });
    }
  }
  return edges;
}

/**
 * One message per set of folders that reach each other: the shortest cycle
 * through the first of them by name (and the whole set, when the cycle
 * leaves some out), and the first import of each edge.
 */
function folderCycles(imports) {
  /** `a` -> `b` -> the first import from a module of `a` to one of `b`. */
  const graph = new Map();
  for (const edge of imports) {
    const [a, b] = [folder(edge.from), folder(edge.to)];
    if (a === undefined || b === undefined || a === b) continue;
    if (!graph.has(a)) graph.set(a, new Map());
    if (!graph.get(a).has(b)) graph.get(a).set(b, edge);
  }
  const next = (a) => [...(graph.get(a)?.keys() ?? [])].sort();
  const reach = (start) => {
    const seen = new Set([start]);
    const queue = [start];
    while (queue.length) {
      for (const b of next(queue.shift())) {
        if (seen.has(b)) continue;
        seen.add(b);
        queue.push(b);
      }
    }
    return seen;
  };
  const reached = new Map([...graph.keys()].map((a) => [a, reach(a)]));
  const messages = [];
  const placed = new Set();
  for (const start of [...graph.keys()].sort()) {
    if (placed.has(start)) continue;
    const component = [...reached.get(start)].filter((b) => reached.get(b)?.has(start));
    for (const member of component) placed.add(member);
    if (component.length < 2) continue;
    // Breadth first from `start` inside the component, back to `start`.
    const cameFrom = new Map();
    const queue = [start];
    while (!cameFrom.has(start)) {
      const a = queue.shift();
      for (const b of next(a)) {
        if (component.includes(b) && !cameFrom.has(b)) {
          cameFrom.set(b, a);
          queue.push(b);
        }
      }
    }
    const cycle = [start];
    for (let at = cameFrom.get(start); at !== start; at = cameFrom.get(at)) cycle.unshift(at);
    cycle.unshift(start);
    const steps = cycle.slice(1).map((b, i) => graph.get(cycle[i]).get(b));
    const among = component.length > steps.length ? ` (one of the cycles among ${list(component.sort())})` : "";
    messages.push(
      [`folders in a cycle: ${cycle.map((f) => `${f}/`).join(" -> ")}${among}`, ...steps.map((edge) => `    ${edge.from}: imports ${edge.to}`)].join("\n"),
    );
  }
  return messages;
}

/** Every broken rule under `srcDir`: `file: imports target (rule)` lines, then each cycle between folders. */
export function layerViolations(srcDir) {
  const imports = importsOf(srcDir);
  const problems = [];
  for (const { from, to } of imports) {
    for (const rule of IMPORT_RULES) {
      const why = rule(from, to);
      if (why) problems.push(`${from}: imports ${to} (${why})`);
    }
  }
  return problems.concat(folderCycles(imports));
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
