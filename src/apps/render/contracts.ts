// The seams between the parts of a render (docs/apps.md, "Rendering"): who
// the host's request acts for (render/identity), what its smart values see
// (the render context), the page's data sources (render/sources) and what
// the layout resolution (render/pages) hands back. Each part depends on these
// shapes only, so each is built and tested on its own; a deadline that
// passed is one error class whichever part noticed it.
import type { ConfinedServices } from "../../access/confined-services";
import type { Principal } from "../../gateway/principal";
import type { Clock } from "../../lib/clock";
import type { OutboundEnv } from "../../lib/outbound/types";
import type { TokenCacheEnv } from "../../lib/outbound/token-cache-client";
import type { Redactor } from "../../lib/redact";
import type { EvaluationBudget } from "../../lib/smart-values";
import type { SpecDocument } from "../../definition/language/spec-schema";
import type { IdentityGuard } from "./identity/cache";

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
