// What a reference inside a spec resolves against. Spec-level widgets, pages
// and modals are merged into every dashboard, and a widget id is looked up in
// its page, then the dashboard, then the spec; an entry written at spec level
// therefore shows in every dashboard. Each name is counted over the
// dashboards once, so resolving a spec-level reference is one lookup however
// many dashboards there are (the checks stay linear in the document's size).
import type { DeclaredCatalogues } from "./spec-components";
import type { Collector, Obj } from "./collector";
import type { Expressions } from "./expressions";
import { isObject } from "../../lib/is-object";

/** A member of a map as written: own keys only (`constructor` is a key like any other). */
export const own = (map: Obj, key: string): unknown => (Object.hasOwn(map, key) ? map[key] : undefined);
/** A map field of `owner`, `{}` when absent or not an object. */
export const mapOf = (owner: Obj, key: string): Obj => {
  const value = owner[key];
  return isObject(value) ? value : {};
};

/** The widgets, pages and modals one level (the spec, or a dashboard) declares. */
export interface Level {
  pages: Obj;
  modals: Obj;
  widgets: Obj;
}

export const levelOf = (owner: Obj): Level => ({ pages: mapOf(owner, "pages"), modals: mapOf(owner, "modals"), widgets: mapOf(owner, "widgets") });

/** The page or modal whose content is being checked. */
export interface PageAt {
  kind: "pages" | "modals";
  key: string;
  sources: Obj;
  widgets: Obj;
}

/** Where an entry is written: its dashboard (none for a spec-level entry) and its page, if any. */
export interface Place {
  dashboard?: Level;
  page?: PageAt;
}

/** A widget reference resolved: the level holding it (`dashboards`: every dashboard showing the entry) and, when one level holds it, the widget. */
export type Resolved = { widget?: Obj; level: "page" | "dashboard" | "spec" | "dashboards" } | undefined;

const bump = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

export class SpecNames {
  readonly spec: Level;
  readonly dashboards: number;
  /** Per name: how many dashboards declare it as a page or a modal, as a modal, as a widget. */
  private readonly pageOrModal = new Map<string, number>();
  private readonly modal = new Map<string, number>();
  private readonly widget = new Map<string, number>();
  /** Per `pages:<key>` / `modals:<key>`: how many dashboards replace that spec-level entry with their own. */
  private readonly replaced = new Map<string, number>();

  constructor(doc: Obj) {
    this.spec = levelOf(doc);
    const dashboards = Object.values(mapOf(doc, "dashboards")).filter(isObject);
    this.dashboards = dashboards.length;
    for (const dashboard of dashboards) {
      const level = levelOf(dashboard);
      for (const key of new Set([...Object.keys(level.pages), ...Object.keys(level.modals)])) bump(this.pageOrModal, key);
      for (const key of Object.keys(level.modals)) bump(this.modal, key);
      for (const key of Object.keys(level.widgets)) bump(this.widget, key);
      for (const kind of ["pages", "modals"] as const)
        for (const key of Object.keys(level[kind])) if (Object.hasOwn(this.spec[kind], key)) bump(this.replaced, `${kind}:${key}`);
    }
  }

  /** Whether `name` names a page or modal (a modal only, with `modalsOnly`) wherever an entry at `place` shows. */
  hasPage(name: string, place: Place, modalsOnly = false): boolean {
    const declares = (level: Level) => Object.hasOwn(level.modals, name) || (!modalsOnly && Object.hasOwn(level.pages, name));
    if (declares(this.spec)) return true;
    if (place.dashboard) return declares(place.dashboard);
    return this.dashboards > 0 && ((modalsOnly ? this.modal : this.pageOrModal).get(name) ?? 0) === this.dashboards;
  }

  /**
   * The widget `id` names from `place`: page, dashboard, spec. From a
   * spec-level page it resolves when every dashboard showing that page
   * declares it; a dashboard that replaces the page is counted as declaring.
   */
  resolveWidget(id: string, place: Place): Resolved {
    const levels: [Obj | undefined, "page" | "dashboard" | "spec"][] = [
      [place.page?.widgets, "page"],
      [place.dashboard?.widgets, "dashboard"],
      [this.spec.widgets, "spec"],
    ];
    for (const [widgets, level] of levels) {
      if (!widgets || !Object.hasOwn(widgets, id)) continue;
      const widget = widgets[id];
      return isObject(widget) ? { widget, level } : { level };
    }
    if (place.dashboard || !place.page || this.dashboards === 0) return undefined;
    const declaring = (this.widget.get(id) ?? 0) + (this.replaced.get(`${place.page.kind}:${place.page.key}`) ?? 0);
    return declaring >= this.dashboards ? { level: "dashboards" } : undefined;
  }
}

/** What every part of a spec's checks shares. */
export interface SpecChecks {
  found: Collector;
  expressions: Expressions;
  names: SpecNames;
  /** The root `auth` map's profiles by name. */
  declared: Map<string, Obj>;
  /** The keys of `jobs`. */
  jobs: Obj;
  /** Literal action configs' schema lines, added last (workflow.ts configChecked). */
  configLines: string[];
  /** The component catalogues the providers declare; none leaves components free. */
  components: DeclaredCatalogues;
}
