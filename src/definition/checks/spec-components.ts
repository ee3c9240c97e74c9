// Widgets against the component catalogues the spec's providers declare
// (docs/apps.md, "Component catalogues"): with any declared, every widget's
// and inline node's component must be in each (`unknown_component`), its
// literal config must pass the component's config schema
// (`component_config_invalid`, with the schema's path below `config`), and
// every handler must be one the component declares (`unknown_handler`). A
// spec's own definitions must be JSON Schemas (`component_schema_invalid`).
// Without a declared catalogue nothing here applies: `widgetComponent` is
// free, as the host's own catalogue is none of the service's business.
import { providerCatalogues, type Catalogue } from "../language/components/catalogue";
import { META_SCHEMA } from "../../lib/json-schema/drafts";
import { checkAll } from "../../lib/validate";
import { isObject } from "../../lib/is-object";
import { child, templated, type Collector, type Obj } from "./collector";

/** The catalogues declared, each once (two providers naming standard/1 check it once), with the providers declaring it. */
export interface DeclaredCatalogues {
  list: { providers: string[]; catalogue: Catalogue }[];
}

export function declaredCatalogues(providers: Obj): DeclaredCatalogues {
  const byCatalogue = new Map<Catalogue, string[]>();
  for (const [provider, catalogue] of providerCatalogues(providers)) byCatalogue.set(catalogue, [...(byCatalogue.get(catalogue) ?? []), provider]);
  return { list: [...byCatalogue].map(([catalogue, names]) => ({ catalogue, providers: names })) };
}

/** Each schema a provider's `define` gives must be a JSON Schema the validator can apply. */
export function checkDefinitions(found: Collector, providers: Obj): void {
  for (const [provider, declaration] of Object.entries(providers)) {
    const components = isObject(declaration) && isObject(declaration.components) ? declaration.components : undefined;
    if (!components || !isObject(components.define)) continue;
    const definesAt = child(child(child("providers", provider), "components"), "define");
    for (const [name, entry] of Object.entries(components.define)) {
      if (!isObject(entry)) continue;
      const at = child(definesAt, name);
      const schemas: [string, unknown][] = [
        ["config", entry.config],
        ["state", entry.state],
      ];
      if (isObject(entry.handlers)) for (const [h, d] of Object.entries(entry.handlers)) if (isObject(d)) schemas.push([`handlers.${h}.payload`, d.payload]);
      for (const [where, schema] of schemas) {
        if (schema === undefined) continue;
        for (const line of checkAll(META_SCHEMA["2020-12"], schema)) found.add(`${at}.${where}`, "component_schema_invalid", `is not a JSON Schema: ${line}`);
      }
    }
  }
}

/** The paths (as the validator renders them below `base`) whose value is a smart value: resolved at render, not checkable now. */
function smartPaths(value: unknown, base: string): string[] {
  const paths: string[] = [];
  const pending: [unknown, string][] = [[value, base]];
  while (pending.length) {
    const [v, at] = pending.pop()!;
    if (templated(v)) paths.push(at);
    else if (Array.isArray(v)) v.forEach((item, i) => pending.push([item, `${at}[${i}]`]));
    else if (isObject(v)) for (const [k, item] of Object.entries(v)) pending.push([item, at ? `${at}.${k}` : k]);
  }
  return paths;
}

/** A defined schema that is no JSON Schema is reported once where it is defined (checkDefinitions), not again at every widget using it. */
const schemaValid = new WeakMap<object, boolean>();
function isSchema(schema: Obj): boolean {
  let valid = schemaValid.get(schema);
  if (valid === undefined) schemaValid.set(schema, (valid = checkAll(META_SCHEMA["2020-12"], schema).length === 0));
  return valid;
}

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);

/**
 * One widget or inline node. `componentAt` is where its component is named,
 * `configAt` its config's path, `handlersAt` its handlers' (a widget's only).
 */
export function checkComponent(
  found: Collector,
  declared: DeclaredCatalogues,
  place: { component: unknown; config: unknown; handlers?: Obj; componentAt: string; configAt: string; handlersAt?: string },
): void {
  if (typeof place.component !== "string" || place.component === "") return;
  for (const { catalogue, providers } of declared.list) {
    const whose = `the catalogue of provider${providers.length > 1 ? "s" : ""} ${providers.join(", ")}`;
    if (!Object.hasOwn(catalogue, place.component)) {
      const known = Object.keys(catalogue);
      found.add(
        place.componentAt,
        "unknown_component",
        `is ${JSON.stringify(place.component)}, which ${whose} does not declare (components: ${known.slice(0, 40).join(", ")}${known.length > 40 ? ", ..." : ""})`,
      );
      continue;
    }
    const declaration = catalogue[place.component];
    if (!templated(place.config) && isSchema(declaration.config)) {
      const smart = smartPaths(place.config, place.configAt);
      for (const line of checkAll(declaration.config, place.config ?? {}, place.configAt)) {
        const path = line.slice(0, line.indexOf(": "));
        if (!smart.some((prefix) => under(path, prefix)))
          found.add(path, "component_config_invalid", `${line.slice(path.length + 2)} (${place.component} in ${whose})`);
      }
    }
    if (place.handlers && place.handlersAt) {
      const handlers = Object.keys(declaration.handlers);
      for (const handler of Object.keys(place.handlers)) {
        if (Object.hasOwn(declaration.handlers, handler)) continue;
        found.add(
          child(place.handlersAt, handler),
          "unknown_handler",
          `is not a handler of ${place.component} in ${whose} (${handlers.length ? `handlers: ${handlers.join(", ")}` : "it has none"})`,
        );
      }
    }
  }
}
