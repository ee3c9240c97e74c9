// The seams between the parts of a render (docs/apps.md, "Rendering"): who
// the host's request acts for (render/identity), what its smart values see
// (the render context), the page's data sources (render/sources), the state
// and pages the screens (render/pages) hand the commands (render/commands),
// and what the screens answer. A part reaches another part only through
// this module (docs/architecture.md, "Apps, definitions and workflows: the
// seams"), so each is built and tested on its own; the render's top-level
// modules put the parts together. A deadline that passed is one error class
// whichever part noticed it.
import type { ConfinedServices } from "../../access/confined-services";
import type { Principal } from "../../lib/principal";
import type { Clock } from "../../lib/clock";
import type { OutboundEnv } from "../../lib/outbound/types";
import type { TokenCacheEnv } from "../../lib/outbound/token-cache-client";
import type { Redactor } from "../../lib/redact";
import type { EvaluationBudget, Scope } from "../../lib/smart-values";
import type { ModalDocument, PageDocument, SpecDocument, WidgetDocument } from "../../definition/language/spec-schema";

/** What a render on cached entries must find still true; each part only when its entry was used (identity/cache.ts). */
export interface IdentityGuard {
  integrationId: string;
  tenantId: string;
  /** The cached target's row versions. */
  versions?: string;
  /** The hex SHA-256 of the app token presented, checked against a cached target. */
  tokenHash?: string;
  /** The cached user's mapping, and the access version its principal was computed at. */
  user?: { key: string; provider: string; companyExternalId: string; externalId: string; userId: string; accessVersion: number };
}

/** The render's deadline passed before a data source (named, when one was pending) resolved: its widget drops with a timeout notification. */
export class DeadlineExceeded extends Error {
  constructor(readonly source?: string) {
    super(source === undefined ? "the render's deadline passed" : `data source ${source} did not resolve before the render's deadline`);
    this.name = "DeadlineExceeded";
  }
}

export type NotificationLevel = "INFO" | "WARNING" | "ERROR";

/**
 * What a dropped widget's notification says of its cause: the cause's
 * `details.code` (or error code) and the data source that failed; the
 * cause's own message only in an author's preview.
 */
export interface FailureDetails {
  code: string;
  source?: string;
  message?: string;
}

/** One entry of a render answer's `notifications[]`. */
export interface Notification {
  id: string;
  level: NotificationLevel;
  message: string;
  details?: FailureDetails;
}

/** Who a render acts for, once the host's credential and identity are verified and the app user resolved. */
export interface RenderIdentity {
  tenantId: string;
  /** The integration rendered for; none for an author's preview. */
  integrationId?: string;
  activationId: string;
  specId: string;
  /** The spec version the activation uses (pinned, or the latest). */
  specVersion: number;
  /** The key of the spec's `providers` the integration's company is registered under. */
  provider: string;
  externalCompanyId: string;
  companyExternalId: string;
  /** The resolved app user. */
  userId: string;
  /** Every identity key the provider's extractors gave, canonical ones included. */
  identity: Record<string, unknown>;
  /** The app user's permissions: the activation's policy, or its role bindings in standard mode. */
  principal: Principal;
  /** What resolving the user tells the host, ahead of the render's own notifications (an email link refused). */
  notifications?: Notification[];
  /** What the render must find still true, in its first wave, when any of this came from the isolate's cache (identity/cache.ts). */
  guard?: IdentityGuard;
}

/**
 * What a render reads of the activation and integration it is aimed at,
 * loaded once before it: by the identity step for a host
 * (identity/target.ts), from the activation for an author's preview.
 */
export interface RenderApp {
  /** The document of the version the activation uses: the definition values of the app and integration scopes. */
  inUse: SpecDocument;
  activation: { id: string; config: Record<string, unknown>; job_bindings: Record<string, string> };
  /** None for an author's preview. */
  integration?: { config: Record<string, unknown>; job_bindings: Record<string, string> };
}

/** The config scopes a render sees, each kept under its own key (definition values merged under the stored ones). */
export interface RenderConfig {
  app: Record<string, unknown>;
  integration: Record<string, unknown>;
  company: Record<string, unknown>;
  team: Record<string, unknown>;
  user: Record<string, unknown>;
}

/** The root of every smart value of a render, before the page adds `page` and a command adds `outputs` and `payload`. */
export interface RenderContext {
  config: RenderConfig;
  /** Names only, per scope. */
  secretsSet: { tenant: string[]; user: string[]; company: string[]; team: string[] };
  /** `resource:action` strings, as `/access/me/permissions` writes them. */
  permissions: string[];
  /** The host's request context, as posted. */
  context: unknown;
  identity: Record<string, unknown>;
  provider: { provider: string; identity: Record<string, unknown> };
}

/** What the data sources of one render reach the world with. */
export interface SourceEnvironment {
  /** The app user's services: `$query` runs with its permissions. */
  services: ConfinedServices;
  /** Every expression of the render draws from this one budget. */
  budget: EvaluationBudget;
  /** Epoch ms past which a source still pending drops its widget. */
  deadline: number;
  /** The spec's `functions`, callable as `$<name>(...)`. */
  functions: Record<string, string>;
  /** The spec's root `auth` profiles, for `$http`. */
  authProfiles: Record<string, unknown>;
  /** Adds a notification to the answer. */
  notify(notification: Notification): void;
  /** The Worker bindings sources use: the cursor key of `$query`, the outbound client and the OAuth2 token cache of `$http`. */
  bindings: SourceBindings;
  /**
   * The secret values the render context carries. What a source's
   * expressions compute from one, and every credential its requests send, is
   * added to it, so the answer can be masked with it.
   */
  secrets?: Redactor;
  /** What `deadline` is read against (the system clock by default). */
  clock?: Clock;
}

export type SourceBindings = Pick<Env, "MASTER_KEY"> & OutboundEnv & TokenCacheEnv;

/**
 * The data sources of one page in one render. A source resolves when first
 * read, and an identical resolved source is fetched once per render until a
 * command writes (`invalidate`).
 */
export interface PageSources {
  /** The source's value: rows, a record (`single`), or null; `scope` is the page's render context. Throws when it fails. */
  read(name: string, scope: Record<string, unknown>): Promise<unknown>;
  /** For `referenceData`: `{ rows, total }` of the source a widget names. */
  reference(name: string, scope: Record<string, unknown>, widgetId: string): Promise<{ rows: unknown[]; total: number }>;
  /** A command wrote: later reads fetch again. */
  invalidate(): void;
}

// --- the screens and the commands ---------------------------------------

/** A placement type a dashboard declares; a surface's `type` and `id`. */
export type PlacementType = "dashboard" | "panel" | "scanCard";

/** One open modal: the page it shows, its params and data, and the placement that opened it. */
export interface ModalState {
  page: string;
  params: Record<string, unknown>;
  data: Record<string, unknown>;
  surface: PlacementType;
}

/** What the host posts back to continue: where the placements are and what the widgets hold. */
export interface RenderState {
  dashboard: string;
  /** The current page; null until the first navigate, when each placement shows its entry page. */
  page: string | null;
  params: Record<string, unknown>;
  data: Record<string, unknown>;
  widgets: Record<string, Record<string, unknown>>;
  modals: ModalState[];
}

/** One widget's state, one page's params or data, as JSON characters. */
export const MAX_STATE_PART = 64 * 1024;
/** All widget states together. */
export const MAX_WIDGET_STATE = 256 * 1024;
/** Open modals, all placements together. */
export const MAX_MODALS = 10;

/** What every page of one render shares. */
export interface RenderRun {
  context: RenderContext;
  budget: EvaluationBudget;
  /** Epoch ms. */
  deadline: number;
  clock: Clock;
  functions: Readonly<Record<string, string>>;
  /** The secret values the render context carries (resolved secret references of its config). */
  secrets?: Redactor;
}

export interface PageInput {
  key: string;
  document: PageDocument;
  params: Record<string, unknown>;
  data: Record<string, unknown>;
  /** `page.widgets`: `{ <id>: { state } }`. */
  widgets: Record<string, { state: Record<string, unknown> }>;
  sources: PageSources;
}

export interface ScanCardDocument {
  if?: unknown;
  props?: unknown;
}

export interface Placement {
  type: PlacementType;
  /** The page the placement opens at. */
  entry: string;
  /** The scanCard's `if` and `props`. */
  card?: ScanCardDocument;
}

/** One dashboard of the spec, its spec-level entries merged under its own (pages/dashboard.ts). */
export interface Dashboard {
  readonly key: string;
  readonly placements: Placement[];
  page(key: string): PageDocument | undefined;
  modal(key: string): ModalDocument | undefined;
  /** A widget of `page`, else of the dashboard, else of the spec. */
  widget(page: PageDocument, id: string): WidgetDocument | undefined;
  widgetIds(): Set<string>;
}

/** One page as its expressions see it (pages/page-scope.ts): its sources read when an expression reads them. */
export interface PageEvaluation {
  /** The scope for expressions `texts`, with the sources they read fetched; throws a source's failure or DeadlineExceeded. */
  scopeFor(texts: readonly string[], extra?: Scope): Promise<Scope>;
  /** A smart value for the answer: anything computed from a secret is masked. */
  resolve(value: unknown, extra?: Scope, expects?: "string" | "json"): Promise<unknown>;
}

/** The error behind a notification, as a `messages` template sees it. */
export interface ErrorCause {
  code: string;
  message: string;
  status: number;
}

/** Where the answer's notifications are collected (pages/notifications.ts); `cause` is what the spec's `messages` may say of it. */
export interface Notices {
  notify(notification: Notification, cause?: ErrorCause): void;
}

/** What the screens' resolution hands the commands: the state they change and how a page's scope is made. */
export interface CommandStage {
  view: Dashboard;
  state: RenderState;
  run: RenderRun;
  notes: Notices;
  debug: unknown[];
  /** A page's scope with sources of its own: made again after a write, so later reads fetch anew. */
  pageScope(input: Omit<PageInput, "sources">): PageEvaluation;
}
