// What the render-pages tests share: a render context, page sources over
// fixed rows (recording what was read), the docs/apps.md example spec, and
// one call that renders a spec.
import apps from "../../docs/apps.md?raw";
import { specExamples } from "../support/doc-examples";
import type { PageSources, RenderContext } from "../../src/apps/render/contracts";
import { RenderNotifications, renderScreens, type RenderAnswer } from "../../src/apps/render/pages";
import type { SpecDocument } from "../../src/definition/language/spec-schema";
import { Redactor } from "../../src/lib/redact";
import { EvaluationBudget } from "../../src/lib/smart-values";

/** A source that never answers, for the deadline. */
export const PENDING = Symbol("pending");

/** A source's fixed value; an Error is thrown when it is read; a function computes it from the page scope. */
export type Fixture = unknown;

/** The example of docs/apps.md, "A complete example". */
export function exampleSpec(): SpecDocument {
  return specExamples("docs/apps.md", apps).find((example) => example.heading === "A complete example")!.document as SpecDocument;
}

export function renderContext(over: Partial<RenderContext> = {}): RenderContext {
  return {
    config: { app: {}, integration: {}, company: {}, team: {}, user: {} },
    secretsSet: { tenant: [], user: [], company: [], team: [] },
    permissions: [],
    context: {},
    identity: {},
    provider: { provider: "portal", identity: {} },
    ...over,
  };
}

/** PageSources over `fixtures[pageKey][sourceName]`, recording each read and reference as `page:name`. */
export function fixedSources(fixtures: Record<string, Record<string, Fixture>>) {
  const reads: string[] = [];
  const references: string[] = [];
  const scopes: Record<string, unknown>[] = [];
  const valueOf = async (pageKey: string, name: string, scope: Record<string, unknown>): Promise<unknown> => {
    const page = fixtures[pageKey] ?? {};
    if (!Object.hasOwn(page, name)) throw new Error(`no fixture for ${pageKey}.${name}`);
    const value = page[name];
    if (value === PENDING) return new Promise(() => undefined);
    if (value instanceof Error) throw value;
    return typeof value === "function" ? (value as (scope: Record<string, unknown>) => unknown)(scope) : value;
  };
  const sourcesFor = (pageKey: string): PageSources => ({
    async read(name, scope) {
      reads.push(`${pageKey}:${name}`);
      scopes.push(scope);
      return valueOf(pageKey, name, scope);
    },
    async reference(name, scope, widgetId) {
      references.push(`${pageKey}:${name}:${widgetId}`);
      const value = await valueOf(pageKey, name, scope);
      const rows = Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];
      return { rows, total: rows.length };
    },
    invalidate() {},
  });
  return { sourcesFor, reads, references, scopes };
}

export interface RenderOptions {
  context?: RenderContext;
  state?: unknown;
  sources?: Record<string, Record<string, Fixture>>;
  budget?: EvaluationBudget;
  deadline?: number;
  secrets?: string[];
  debug?: unknown[];
  /** Notifications given before the layout (a command's, a source's). */
  before?: (notes: RenderNotifications) => void;
}

/** Renders `spec`; with the sources' record of reads beside the answer. */
export async function render(spec: SpecDocument, options: RenderOptions = {}): Promise<RenderAnswer & { reads: string[]; references: string[] }> {
  const sources = fixedSources(options.sources ?? {});
  const notifications = new RenderNotifications();
  options.before?.(notifications);
  const answer = await renderScreens({
    spec,
    context: options.context ?? renderContext(),
    state: options.state,
    sourcesFor: sources.sourcesFor,
    budget: options.budget ?? new EvaluationBudget(),
    deadline: options.deadline ?? Date.now() + 25_000,
    notifications,
    secrets: options.secrets ? new Redactor(options.secrets) : undefined,
    act: options.debug && (async (stage) => void stage.debug.push(...options.debug!)),
  });
  return { ...answer, reads: sources.reads, references: sources.references };
}

/** The ids of an answer's notifications. */
export const idsOf = (answer: RenderAnswer) => answer.notifications.map((n) => n.id);

/** A one-dashboard spec whose dashboard placement shows `home`. */
export function oneDashboard(home: Record<string, unknown>, more: Record<string, unknown> = {}): SpecDocument {
  return { dashboards: { main: { surfaces: { dashboard: "home" }, pages: { home } } }, ...more } as SpecDocument;
}
