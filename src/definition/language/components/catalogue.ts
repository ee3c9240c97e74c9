// The component catalogues the service knows by name, and the one a provider
// declares (`providers.<name>.components`): a known catalogue by name, or
// `{ extends?, define }` adding (or replacing) components of the host's own.
// Publish checks every widget against each declared catalogue, the render
// checks resolved configs against its provider's, and GET /apps/components
// lists the named ones for hosts and their kits.
import { isObject } from "../../../lib/is-object";
import { STANDARD_1 } from "./standard";

export interface ComponentDeclaration {
  description: string;
  config: Record<string, unknown>;
  state: Record<string, unknown>;
  handlers: Record<string, { payload: Record<string, unknown> }>;
}

export type Catalogue = Readonly<Record<string, ComponentDeclaration>>;

export const CATALOGUES: Readonly<Record<string, Catalogue>> = {
  "standard/1": STANDARD_1,
};

export const CATALOGUE_NAMES = Object.keys(CATALOGUES);

const ANY_OBJECT = { type: "object" };

type Obj = Record<string, unknown>;

/** A component a spec defines: each schema it leaves out takes any object, and it has no handlers unless it names them. */
function defined(name: string, entry: Obj): ComponentDeclaration {
  const handlers = isObject(entry.handlers) ? entry.handlers : {};
  return {
    description: typeof entry.description === "string" ? entry.description : `${name}, defined by the spec`,
    config: isObject(entry.config) ? entry.config : ANY_OBJECT,
    state: isObject(entry.state) ? entry.state : ANY_OBJECT,
    handlers: Object.fromEntries(Object.entries(handlers).map(([h, d]) => [h, { payload: isObject(d) && isObject(d.payload) ? d.payload : ANY_OBJECT }])),
  };
}

/**
 * The catalogue a provider's `components` declares; undefined when it
 * declares none (its widgets' components stay free) or names no known
 * catalogue (publish refuses that document before this is asked).
 */
export function declaredCatalogue(components: unknown): Catalogue | undefined {
  if (typeof components === "string") return Object.hasOwn(CATALOGUES, components) ? CATALOGUES[components] : undefined;
  if (!isObject(components) || !isObject(components.define)) return undefined;
  const base = typeof components.extends === "string" && Object.hasOwn(CATALOGUES, components.extends) ? CATALOGUES[components.extends] : {};
  const own = Object.entries(components.define).filter((e): e is [string, Obj] => isObject(e[1]));
  return { ...base, ...Object.fromEntries(own.map(([name, entry]) => [name, defined(name, entry)])) };
}

/** The catalogues of a spec's providers, keyed by provider name (only those that declare one). */
export function providerCatalogues(providers: unknown): Map<string, Catalogue> {
  const found = new Map<string, Catalogue>();
  if (!isObject(providers)) return found;
  for (const [name, provider] of Object.entries(providers)) {
    const catalogue = isObject(provider) ? declaredCatalogue(provider.components) : undefined;
    if (catalogue) found.set(name, catalogue);
  }
  return found;
}
