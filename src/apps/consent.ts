// What a tenant a spec is shared to has consented to (DECISIONS "Shared
// specs: a consumer consents to what widens"). The spec owner publishes; the
// consumer's activation runs with the consumer's policies, secrets and users,
// so a version that would reach further there than the accepted one waits
// for the consumer's operator. Pure: the documents come from the caller.
import { ACTION_NAMES } from "../definition/language/workflow-schema";
import { permits, type InlinePermissions } from "../workflows/inline";
import type { SpecDocument } from "../definition/language/spec-schema";
import { isObject } from "../lib/is-object";

export const WIDENING_CODES = ["policy_widened", "provider_added", "outbound_changed", "job_changed", "permission_set_widened"] as const;
export type WideningCode = (typeof WIDENING_CODES)[number];

/** One way a version reaches further than the accepted one; `path` is dotted as publish issues are. */
export interface Widening {
  code: WideningCode;
  path: string;
}

/** A kept version of a spec. */
export interface KeptVersion {
  version: number;
  document: SpecDocument;
}

export interface VersionInUse {
  version: number;
  /** The latest version, held because it widens what was accepted. */
  pending?: { version: number; changes: Widening[] };
}

/**
 * The version an unpinned consumer activation uses: the newest of `newer`
 * (ascending, after the accepted one) that widens nothing past the accepted
 * document, else the accepted one. Each is compared with the accepted
 * document, not with its predecessor: a grant added and removed again
 * reaches nobody, and a label changed after a held widening still waits.
 */
export function versionInUse(accepted: KeptVersion, newer: KeptVersion[]): VersionInUse {
  let version = accepted.version;
  let changes: Widening[] = [];
  for (const kept of newer) {
    changes = widenings(accepted.document, kept.document);
    if (changes.length === 0) version = kept.version;
  }
  const latest = newer.at(-1);
  return latest && changes.length > 0 ? { version, pending: { version: latest.version, changes } } : { version };
}

/** Every way `next` reaches further than `accepted`, by code and then in the order `next` is written; empty when it widens nothing. */
export function widenings(accepted: SpecDocument, next: SpecDocument): Widening[] {
  return [
    ...policyWidenings(accepted, next),
    ...providerWidenings(accepted, next),
    ...outboundWidenings(accepted, next),
    ...jobWidenings(accepted, next),
    ...permissionSetWidenings(accepted, next),
  ];
}

type Grant = NonNullable<SpecDocument["policies"]>[string]["grants"][number];

const APP_CONFIG = "$app_config";

/** What a grant is narrowed to; `$app_config` is the activation whichever field names it. */
function narrowing(g: Grant): string | undefined {
  if (g.resourceName === APP_CONFIG || g.resourceId === APP_CONFIG) return "activation";
  if (g.resourceName !== undefined) return `name:${g.resourceName}`;
  return g.resourceId === undefined ? undefined : `id:${g.resourceId}`;
}

/** Whether `held` gives every action of `g`, each by a grant of the same resource as wide or wider. */
function covered(g: Grant, held: readonly Grant[]): boolean {
  return g.actions.every((action) =>
    held.some((h) => h.resource === g.resource && h.actions.includes(action) && (narrowing(h) === undefined || narrowing(h) === narrowing(g))),
  );
}

const grantsOf = (doc: SpecDocument, key: string | undefined): Grant[] =>
  key !== undefined && Object.hasOwn(doc.policies ?? {}, key) ? (doc.policies![key].grants ?? []) : [];

function policyWidenings(accepted: SpecDocument, next: SpecDocument): Widening[] {
  const found: Widening[] = [];
  for (const key of Object.keys(next.policies ?? {})) {
    const held = grantsOf(accepted, key);
    grantsOf(next, key).forEach((g, i) => {
      if (!covered(g, held)) found.push({ code: "policy_widened", path: `policies.${key}.grants[${i}]` });
    });
  }
  // The default policy is the one the app's users act with: moving it to another key widens what they hold unless the old one gave as much.
  if (next.defaultPolicy !== undefined && next.defaultPolicy !== accepted.defaultPolicy) {
    const held = grantsOf(accepted, accepted.defaultPolicy);
    if (!grantsOf(next, next.defaultPolicy).every((g) => covered(g, held))) found.push({ code: "policy_widened", path: "defaultPolicy" });
  }
  return found;
}

/** What decides whom a provider's renders act for: its credential checks (keys, issuer, audience) and the identity it reads. */
const PROVIDER_TRUST = ["auth", "identity"] as const;
/** Switches that, turned on, let a provider reach users it did not reach before. */
const PROVIDER_REACH = ["autoCreateUsers", "allowEmailLink"] as const;

/**
 * A provider added, or one changed where it decides whom the app acts for,
 * admits people the accepted version did not: both are `provider_added`
 * (a new key-document URL, issuer or identity claim is a new provider in
 * all but name).
 */
function providerWidenings(accepted: SpecDocument, next: SpecDocument): Widening[] {
  const found: Widening[] = [];
  for (const [name, provider] of Object.entries(next.providers ?? {})) {
    const before = Object.hasOwn(accepted.providers ?? {}, name) ? accepted.providers![name] : undefined;
    if (!before) {
      found.push({ code: "provider_added", path: `providers.${name}` });
      continue;
    }
    for (const key of PROVIDER_TRUST)
      if (canonical(provider[key]) !== canonical(before[key])) found.push({ code: "provider_added", path: `providers.${name}.${key}` });
    for (const key of PROVIDER_REACH)
      if (provider[key] === true && before[key] !== true) found.push({ code: "provider_added", path: `providers.${name}.${key}` });
  }
  return found;
}

/** A value's JSON with object keys sorted: documents keep key order as written, which says nothing about what they do. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

/** Every object below `value` (itself included) with its dotted path. */
function walk(value: unknown, path: string, visit: (node: Record<string, unknown>, path: string) => void): void {
  if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`, visit));
  else if (isObject(value)) {
    visit(value, path);
    for (const [key, child] of Object.entries(value)) walk(child, path ? `${path}.${key}` : key, visit);
  }
}

/** The document without `jobs`: a jobs entry is compared whole (job_changed), so what is inside one is not looked at again. */
function withoutJobs(doc: SpecDocument): Record<string, unknown> {
  const { jobs: _jobs, ...rest } = doc;
  return rest;
}

/** A place a request leaves from: a `$http` source or an `http` action of an `actions` command. */
interface OutboundSite {
  path: string;
  url: string;
  /** Undefined when the request sends no auth: dropping one never widens. */
  auth: string | undefined;
}

function outboundSites(doc: SpecDocument): OutboundSite[] {
  const sites: OutboundSite[] = [];
  const site = (path: string, request: Record<string, unknown>) =>
    sites.push({ path, url: canonical(request.url), auth: request.auth === undefined ? undefined : canonical(request.auth) });
  walk(withoutJobs(doc), "", (node, path) => {
    if (isObject(node.$http)) site(`${path}.$http`, node.$http);
    if (node.kind === "actions" && Array.isArray(node.actions)) {
      walk(node.actions, `${path}.actions`, (action, at) => {
        if (action.name === "http" && isObject(action.config)) site(`${at}.config`, action.config);
      });
    }
  });
  return sites;
}

/**
 * A request to a URL the accepted version never called, or with an auth it
 * never sent there, carries the consumer's config (and the secrets it
 * references) somewhere new. Moving a call within the document does not.
 */
function outboundWidenings(accepted: SpecDocument, next: SpecDocument): Widening[] {
  const before = outboundSites(accepted);
  const urls = new Set(before.map((s) => s.url));
  const pairs = new Set(before.map((s) => `${s.url} ${s.auth}`));
  const found: Widening[] = [];
  for (const s of outboundSites(next)) {
    if (!urls.has(s.url)) found.push({ code: "outbound_changed", path: `${s.path}.url` });
    else if (s.auth !== undefined && !pairs.has(`${s.url} ${s.auth}`)) found.push({ code: "outbound_changed", path: `${s.path}.auth` });
  }
  for (const [name, profile] of Object.entries(next.auth ?? {})) {
    if (!Object.hasOwn(accepted.auth ?? {}, name) || canonical(accepted.auth![name]) !== canonical(profile))
      found.push({ code: "outbound_changed", path: `auth.${name}` });
  }
  return found;
}

/** A jobs entry as what it does: `null` and `{}` are both a slot. */
const jobOf = (entry: unknown) => canonical(isObject(entry) && Object.keys(entry).length > 0 ? entry : null);

function jobWidenings(accepted: SpecDocument, next: SpecDocument): Widening[] {
  const before = accepted.jobs ?? {};
  return Object.entries(next.jobs ?? {})
    .filter(([key, entry]) => !Object.hasOwn(before, key) || jobOf(before[key]) !== jobOf(entry))
    .map(([key]) => ({ code: "job_changed", path: `jobs.${key}` }));
}

interface CommandPermissions extends InlinePermissions {
  path: string;
}

/** The permission set of every `actions` and `job` command (a `job` command always runs under `readonly`). */
function commandPermissions(doc: SpecDocument): CommandPermissions[] {
  const found: CommandPermissions[] = [];
  const names = (v: unknown) => (Array.isArray(v) ? v.filter((n): n is string => typeof n === "string") : []);
  walk(withoutJobs(doc), "", (node, path) => {
    if (node.kind !== "actions" && node.kind !== "job") return;
    const permissionSet = node.kind === "actions" && node.permissionSet === "dataMutation" ? "dataMutation" : "readonly";
    found.push({ path, permissionSet, additionalAllowed: names(node.additionalAllowed), denied: names(node.denied) });
  });
  return found;
}

const allowedActions = (p: InlinePermissions) => ACTION_NAMES.filter((name) => permits(p, name));

/**
 * Inline action lists change freely; what they may run is capped by their
 * permission sets. `readonly` (the default) and what the accepted version's
 * commands allowed together is the ceiling: a command allowing an action
 * beyond it widens, at `permissionSet` when `dataMutation` brought it, else
 * at `additionalAllowed`.
 */
function permissionSetWidenings(accepted: SpecDocument, next: SpecDocument): Widening[] {
  const allowed = new Set([{ permissionSet: "readonly" } as const, ...commandPermissions(accepted)].flatMap(allowedActions));
  const found: Widening[] = [];
  for (const command of commandPermissions(next)) {
    const extra = allowedActions(command).filter((name) => !allowed.has(name));
    if (extra.length === 0) continue;
    const bySet = command.permissionSet === "dataMutation" && extra.some((name) => !command.additionalAllowed?.includes(name));
    found.push({ code: "permission_set_widened", path: `${command.path}.${bySet ? "permissionSet" : "additionalAllowed"}` });
  }
  return found;
}
