// What one render answers (docs/apps.md, "What a render answers"): the dashboard chosen by
// `defaultDashboard`, every placement it declares showing the one current
// page (each its entry page until the first navigate), each placement's
// modals, the state to post back, the rows of every widget bound to a
// source, and the notifications, with secrets masked throughout. No
// database and no fetch here: data arrives through PageSources.
import type { ModalDocument, PageDocument, SpecDocument } from "../../../definition/language/spec-schema";
import { systemClock, type Clock } from "../../../lib/clock";
import { ApiError } from "../../../lib/errors";
import type { Redactor } from "../../../lib/redact";
import { resolveSmartValue, type EvaluationBudget } from "../../../lib/smart-values";
import type { CommandStage, ModalState, PageInput, PageSources, Placement, RenderContext, RenderRun, RenderState } from "../contracts";
import { dashboardsOf, DashboardView } from "./dashboard";
import { PageLayout, type LayoutSink } from "./layout";
import { causeOf, type RenderNotifications } from "./notifications";
import { DeadlineExceeded, maskingWatch, PageScope } from "./page-scope";
import { checkScanCardProps } from "./scan-card";
import { normaliseState } from "./state";
import type { ModalAnswer, RenderAnswer, Surface } from "./types";
import type { Catalogue } from "../../../definition/language/components/catalogue";
import { isObject } from "../../../lib/is-object";

export interface RenderInput {
  /** The spec document as stored (key order kept: the first dashboard is the fallback). */
  spec: SpecDocument;
  context: RenderContext;
  /** The `state` the host posted back, untrusted; absent on a first render. */
  state?: unknown;
  /**
   * The data sources of one page (a modal is a page): called once per page
   * shown. `grids` names, per source, the widget bound to it (its
   * `dataSource`), found as the layout finds widgets: a paged source pages as
   * that grid does.
   */
  sourcesFor(pageKey: string, dataSources: Record<string, unknown>, grids: Record<string, string>): PageSources;
  /** Every expression of the render draws from it (1 s of evaluation). */
  budget: EvaluationBudget;
  /** Epoch ms past which a widget still waiting for its source is dropped. */
  deadline: number;
  /** Where the render's notifications gather (the sources' and the commands' too). */
  notifications: RenderNotifications;
  /** The secret values the render context carries: never answered, nor anything computed from them. */
  secrets?: Redactor;
  /** An author's preview: a dropped widget's notification carries its cause's own message. */
  causeMessages?: boolean;
  /** The component catalogues a widget's resolved config must pass (the render's provider's; every declared one in a preview). */
  catalogues?: readonly Catalogue[];
  /** Runs the posted action's commands against the state before the screens resolve (and may change the render context). */
  act?(stage: CommandStage): Promise<void>;
  clock?: Clock;
}

type Obj = Record<string, unknown>;

/** The dashboard `defaultDashboard` names (literal or smart value on the render context), else the first in document order. */
async function chooseDashboard(spec: SpecDocument, run: RenderRun, notes: RenderNotifications): Promise<string> {
  const dashboards = dashboardsOf(spec);
  const keys = Object.keys(dashboards);
  if (keys.length === 0) throw new ApiError("UNPROCESSABLE_ENTITY", "The app spec declares no dashboard.");
  if (spec.defaultDashboard !== undefined) {
    try {
      const key = await resolveSmartValue(spec.defaultDashboard, { ...run.context }, { expects: "string", budget: run.budget, functions: run.functions });
      if (typeof key === "string" && Object.hasOwn(dashboards, key)) return key;
    } catch (err) {
      notes.notify(
        { id: "default-dashboard-error", level: "WARNING", message: "defaultDashboard could not be resolved; the first dashboard is shown." },
        causeOf(err),
      );
    }
  }
  return keys[0];
}

/** One page shown in this render (a base page, or one open modal), with its layout resolved at most once. */
interface Shown {
  scope: PageScope;
  layout: PageLayout;
}

class Screens {
  private readonly basePages = new Map<string, Shown>();
  private readonly widgetStates: Record<string, { state: Record<string, unknown> }>;

  constructor(
    private readonly input: RenderInput,
    private readonly run: RenderRun,
    private readonly view: DashboardView,
    private readonly state: RenderState,
    private readonly sink: LayoutSink,
  ) {
    this.widgetStates = Object.fromEntries([...view.widgetIds()].map((id) => [id, { state: Object.hasOwn(state.widgets, id) ? state.widgets[id] : {} }]));
  }

  private show(key: string, document: PageDocument, params: Obj, data: Obj): Shown {
    const scope = new PageScope(this.run, {
      key,
      document,
      params,
      data,
      widgets: this.widgetStates,
      sources: sourcesOf(this.input, this.view, key, document),
    });
    return { scope, layout: new PageLayout(this.view, scope, this.sink) };
  }

  /** A base page: every placement showing it shares one resolution. */
  private basePage(key: string): Shown | undefined {
    let shown = this.basePages.get(key);
    if (!shown) {
      const document = this.view.page(key);
      if (!document) return undefined;
      shown = this.show(key, document, this.state.params, this.state.data);
      this.basePages.set(key, shown);
    }
    return shown;
  }

  async surfaces(): Promise<Surface[]> {
    const surfaces = await Promise.all(this.view.placements.map((placement) => this.surface(placement)));
    return surfaces.filter((surface): surface is Surface => surface !== undefined);
  }

  private async surface(placement: Placement): Promise<Surface | undefined> {
    const pageKey = this.state.page ?? placement.entry;
    const shown = this.basePage(pageKey);
    const notes = this.sink.notes;
    if (!shown) {
      notes.notify({
        id: `surface-error-${placement.type}`,
        level: "ERROR",
        message: `The ${placement.type} shows ${pageKey}, which is no page of this dashboard.`,
      });
      return undefined;
    }
    const surface: Surface = { type: placement.type, id: placement.type, page: pageKey, blocks: [] };
    if (placement.card) {
      const props = await this.cardProps(placement, shown.scope);
      if (!props) return undefined;
      surface.props = props;
    }
    const [blocks, modals] = await Promise.all([shown.layout.blocks(), this.modals(placement)]);
    surface.blocks = blocks;
    if (modals.length) surface.modals = modals;
    return surface;
  }

  /** A scanCard's props when its `if` holds and they check out; undefined (the card is absent) otherwise. */
  private async cardProps(placement: Placement, scope: PageScope): Promise<Surface["props"] | undefined> {
    const notes = this.sink.notes;
    const card = placement.card!;
    /** `field` prefixes the error's own words, which start with the path below it. */
    const skipped = (err: unknown, field: string) => {
      if (err instanceof DeadlineExceeded)
        notes.notify({ id: "scan-card-timeout", level: "WARNING", message: "The scanCard took too long to load its data." }, causeOf(err));
      else
        notes.notify(
          { id: "scan-card-error", level: "ERROR", message: `The scanCard was skipped: ${field}${err instanceof Error ? err.message : "failed"}` },
          causeOf(err),
        );
    };
    if (typeof card.if === "string") {
      try {
        if (!(await scope.predicate(card.if))) return undefined;
      } catch (err) {
        skipped(err, "if: ");
        return undefined;
      }
    }
    try {
      return checkScanCardProps(await scope.resolve(card.props));
    } catch (err) {
      skipped(err, "props.");
      return undefined;
    }
  }

  /** The modals this placement opened, bottom first. */
  private async modals(placement: Placement): Promise<ModalAnswer[]> {
    const open = this.state.modals.filter((modal) => modal.surface === placement.type);
    return Promise.all(open.map((modal) => this.modal(modal)));
  }

  private async modal(modal: ModalState): Promise<ModalAnswer> {
    // normaliseState kept only modals the dashboard has.
    const document = this.view.modal(modal.page) as ModalDocument;
    const shown = this.show(modal.page, document, modal.params, modal.data);
    return { page: modal.page, wide: document.wide === true, blocks: await shown.layout.blocks() };
  }
}

/** The sources of a page shown in this render, each paged source with the grid the page's layout would show for it. */
function sourcesOf(input: RenderInput, view: DashboardView, key: string, document: PageDocument): PageSources {
  const dataSources = isObject(document.dataSources) ? document.dataSources : {};
  return input.sourcesFor(key, dataSources, view.boundWidgets(document));
}

/** Resolves the screens of one render request; throws only when the spec has no dashboard at all. */
export async function renderScreens(input: RenderInput): Promise<RenderAnswer> {
  const spec = input.spec;
  const notes = input.notifications;
  const functions = isObject(spec.functions) ? (spec.functions as Record<string, string>) : {};
  const run: RenderRun = {
    context: input.context,
    budget: input.budget,
    deadline: input.deadline,
    clock: input.clock ?? systemClock,
    functions,
    secrets: input.secrets,
  };
  const key = await chooseDashboard(spec, run, notes);
  const view = new DashboardView(key, dashboardsOf(spec)[key], spec);
  const state = normaliseState(input.state, view, notes);
  const debug: unknown[] = [];
  if (input.act) {
    const pageScope: CommandStage["pageScope"] = (page) =>
      new PageScope(
        run,
        Object.defineProperties({ sources: sourcesOf(input, view, page.key, page.document) }, Object.getOwnPropertyDescriptors(page)) as PageInput,
      );
    await input.act({ view, state, run, notes, debug, pageScope });
  }
  const sink: LayoutSink = { notes, referenceData: {}, catalogues: input.catalogues ?? [] };
  const surfaces = await new Screens(input, run, view, state, sink).surfaces();
  const messages = isObject(spec.messages) ? spec.messages : {};
  const answer: RenderAnswer = {
    surfaces,
    state,
    referenceData: sink.referenceData,
    notifications: await notes.answer(messages, { budget: run.budget, functions, secrets: maskingWatch(run.secrets), causeMessages: input.causeMessages }),
  };
  if (debug.length) answer.debug = debug;
  // What an expression computed from a secret is masked where it was computed; this
  // catches a secret value that arrived as it is (a posted state, a source's rows, an error).
  return input.secrets?.size ? input.secrets.value(answer) : answer;
}
