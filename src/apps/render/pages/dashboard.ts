// One dashboard of a spec as a render sees it: its placements, and its
// pages, modals and widgets with the spec-level entries merged under its own
// (a dashboard entry replaces the spec entry of the same key whole). Widget
// ids resolve in the page, then the dashboard, then the spec.
import type { DashboardDocument, ModalDocument, PageDocument, SpecDocument, WidgetDocument } from "../../../definition/language/spec-schema";
import { PLACEMENT_TYPES } from "./types";
import type { Dashboard, Placement, PlacementType } from "../contracts";
import { isObject } from "../../../lib/is-object";

const mapOf = <T>(value: unknown): Record<string, T> => (isObject(value) ? (value as Record<string, T>) : {});

/** `map[key]` when the map holds it as its own entry (a posted name such as `constructor` finds nothing). */
export function own<T>(map: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

export class DashboardView implements Dashboard {
  readonly pages: Record<string, PageDocument>;
  readonly modals: Record<string, ModalDocument>;
  /** The dashboard's widgets over the spec's. */
  readonly widgets: Record<string, WidgetDocument>;
  readonly placements: Placement[];
  /** The ids of `widgets`, the dashboard's before the spec's. */
  private readonly sharedWidgetIds: string[];

  constructor(
    readonly key: string,
    dashboard: DashboardDocument,
    spec: SpecDocument,
  ) {
    this.pages = { ...mapOf<PageDocument>(spec.pages), ...mapOf<PageDocument>(dashboard.pages) };
    this.modals = { ...mapOf<ModalDocument>(spec.modals), ...mapOf<ModalDocument>(dashboard.modals) };
    this.widgets = { ...mapOf<WidgetDocument>(spec.widgets), ...mapOf<WidgetDocument>(dashboard.widgets) };
    this.sharedWidgetIds = [...new Set([...Object.keys(mapOf(dashboard.widgets)), ...Object.keys(mapOf(spec.widgets))])];
    this.placements = [];
    const surfaces = mapOf<unknown>(dashboard.surfaces);
    // Surfaces answer in the order the document declares them.
    for (const [type, entry] of Object.entries(surfaces)) {
      if (!(PLACEMENT_TYPES as readonly string[]).includes(type)) continue;
      const page = typeof entry === "string" ? entry : isObject(entry) && typeof entry.page === "string" ? entry.page : undefined;
      if (page === undefined) continue;
      this.placements.push({
        type: type as PlacementType,
        entry: page,
        ...(type === "scanCard" && isObject(entry) ? { card: { if: entry.if, props: entry.props } } : {}),
      });
    }
  }

  page(key: string): PageDocument | undefined {
    return own(this.pages, key);
  }

  modal(key: string): ModalDocument | undefined {
    return own(this.modals, key);
  }

  /** A widget of `page`, else of the dashboard, else of the spec. */
  widget(page: PageDocument, id: string): WidgetDocument | undefined {
    return own(mapOf<WidgetDocument>(page.widgets), id) ?? own(this.widgets, id);
  }

  /**
   * Per data source of `page`, the widget bound to it (whose `dataSource`
   * names it): each id `page` can show, found as `widget` finds it, the
   * page's own ids first, then the dashboard's, then the spec's.
   */
  boundWidgets(page: PageDocument): Record<string, string> {
    const sources = mapOf<unknown>(page.dataSources);
    const bound: Record<string, string> = {};
    for (const id of new Set([...Object.keys(mapOf(page.widgets)), ...this.sharedWidgetIds])) {
      const source = this.widget(page, id)?.dataSource;
      if (typeof source === "string" && Object.hasOwn(sources, source) && !Object.hasOwn(bound, source)) bound[source] = id;
    }
    return bound;
  }

  /** Every widget id a page, modal, the dashboard or the spec declares: the widgets a posted state may hold. */
  widgetIds(): Set<string> {
    const ids = new Set(Object.keys(this.widgets));
    for (const page of [...Object.values(this.pages), ...Object.values(this.modals)]) for (const id of Object.keys(mapOf(page?.widgets))) ids.add(id);
    return ids;
  }

  placement(type: string): Placement | undefined {
    return this.placements.find((p) => p.type === type);
  }
}

/** The dashboards of a stored document, in document order. */
export function dashboardsOf(spec: SpecDocument): Record<string, DashboardDocument> {
  return mapOf<DashboardDocument>(spec.dashboards);
}
