// What the two tenants have stored, as a digest per table, so a request can be
// checked for writing anything (docs/storage.md lists the tables); and a
// restore to a saved state, so what one operation's requests stored (a value
// that breaks every later read, say) does not spill into the next operation's.
import { env } from "cloudflare:test";

export type Query = (text: string, params?: unknown[]) => Promise<Record<string, any>[]>;

/**
 * Tenant-owned tables, parents first. Left out: `event_outbox` and
 * `event_deliveries`, which the queue consumer rewrites on its own time after
 * a successful write; `tenants`, which no route writes; and `access_versions`,
 * a counter the triggers bump on every access-row change (a restore's too).
 */
const TABLES = [
  "users",
  "roles",
  "api_tokens",
  "role_bindings",
  "shares",
  "secrets",
  "external_companies",
  "external_users",
  "idempotency_records",
  "schemas",
  "entity_types",
  "entities",
  "relationship_rules",
  "relationships",
  "events",
  "artifacts",
  "artifact_versions",
  "temp_files",
  "workflow_definitions",
  // A policy may name the workflow that provisioned it, and an activation names its policy.
  "policies",
  "grants",
  "policy_assignments",
  "workflow_versions",
  "job_definitions",
  "workflow_activations",
  "workflow_triggers",
  "cron_schedules",
  "workflow_runs",
  "workflow_job_runs",
  "workflow_action_runs",
  "workflow_action_log",
  "app_specs",
  "app_spec_versions",
  "app_activations",
  "app_integrations",
  "app_principal_configs",
  "app_tokens",
  "app_upload_slots",
];

/**
 * Columns closing a cycle of foreign keys (a policy names the app activation
 * that provisioned it, which names its policy): restored as null with their
 * row, then set once every table is back.
 */
const CYCLIC: Record<string, string[]> = { policies: ["app_activation_id"] };

/**
 * Rows a table's digest leaves out: the runs event triggers start, which the
 * queue consumer writes on its own time after a successful entity write (so
 * they may land while a later, refused request is being checked).
 */
const UNDIGESTED: Record<string, string> = { workflow_runs: "x.trigger_type = 'event'" };

/**
 * What the digest leaves out of the run tables: a run's object walks it on
 * its own time after the request that started it (a dispatch, a webhook, a
 * retry) answered, so its progress may land while a later, refused request
 * is being checked. That is a run row's progress columns and the job runs,
 * action runs and action log only the objects write. A run row itself (its
 * id, context, attempt) is still digested: a refused request that starts or
 * retries a run is caught.
 */
const PROGRESS_COLUMNS: Record<string, string[]> = { workflow_runs: ["status", "outputs", "error", "started_at", "finished_at", "updated_at"] };
const RUN_OBJECT_TABLES = new Set(["workflow_job_runs", "workflow_action_runs", "workflow_action_log"]);

/** A row as the digest reads it. */
const digested = (t: string) => (PROGRESS_COLUMNS[t] ? `(to_jsonb(x) - ${PROGRESS_COLUMNS[t].map((c) => `'${c}'`).join(" - ")})::text` : "x::text");

export type Snapshot = Record<string, string>;

const DIGEST = [
  ...TABLES.filter((t) => !RUN_OBJECT_TABLES.has(t)).map(
    (t) =>
      `SELECT '${t}' AS t, count(*)::int || ':' || md5(coalesce(string_agg(${digested(t)}, '|' ORDER BY ${digested(t)}), '')) AS d FROM ${t} x WHERE tenant_id = ANY($1::uuid[])${UNDIGESTED[t] ? ` AND NOT (${UNDIGESTED[t]})` : ""}`,
  ),
  // The per-type indexes a type write builds (named after the type's id).
  `SELECT 'type indexes', count(*)::int || ':' || md5(coalesce(string_agg(indexname, '|' ORDER BY indexname), '')) FROM pg_indexes
     WHERE tablename = 'entities' AND substr(indexname, 4, 32) IN (SELECT replace(id::text, '-', '') FROM entity_types WHERE tenant_id = ANY($1::uuid[]))`,
].join(" UNION ALL ");

export async function snapshot(q: Query, tenants: string[]): Promise<Snapshot> {
  const out: Snapshot = Object.fromEntries((await q(DIGEST, [tenants])).map((r) => [r.t, r.d]));
  for (const kind of ["artifacts", "temp-files"]) {
    const keys: string[] = [];
    for (const t of tenants) keys.push(...(await env.FILES.list({ prefix: `${kind}/${t}/` })).objects.map((o) => o.key));
    out[`R2 ${kind}`] = keys.sort().join("|");
  }
  return out;
}

/** The tables (and R2 prefixes) whose digest changed, with the row counts before and after. */
export function changes(before: Snapshot, after: Snapshot): string[] {
  return Object.keys(after)
    .filter((k) => before[k] !== after[k])
    .map((k) =>
      k.startsWith("R2")
        ? `${k} objects ${before[k].split("|").filter(Boolean).length}→${after[k].split("|").filter(Boolean).length}`
        : `${k} ${before[k].split(":")[0]}→${after[k].split(":")[0]}`,
    );
}

export interface Saved {
  rows: Record<string, unknown[]>;
  objects: Map<string, ArrayBuffer>;
}

export async function save(q: Query, tenants: string[]): Promise<Saved> {
  const rows: Saved["rows"] = {};
  for (const t of TABLES) rows[t] = (await q(`SELECT coalesce(jsonb_agg(x), '[]') AS rows FROM ${t} x WHERE tenant_id = ANY($1::uuid[])`, [tenants]))[0].rows;
  const objects = new Map<string, ArrayBuffer>();
  for (const kind of ["artifacts", "temp-files"]) {
    for (const t of tenants) {
      for (const o of (await env.FILES.list({ prefix: `${kind}/${t}/` })).objects) objects.set(o.key, await (await env.FILES.get(o.key))!.arrayBuffer());
    }
  }
  return { rows, objects };
}

/**
 * Puts the tenants' rows back as saved, in one transaction, and the stored
 * objects that have gone since (objects written since stay, unreferenced).
 */
export async function restore(q: Query, tenants: string[], saved: Saved): Promise<void> {
  const statements = [
    ...[...TABLES].reverse().map((t) => `DELETE FROM ${t} WHERE tenant_id = ANY($1::uuid[])`),
    "DELETE FROM event_outbox WHERE tenant_id = ANY($1::uuid[])",
    "DELETE FROM event_deliveries WHERE tenant_id = ANY($1::uuid[])",
  ];
  await q("BEGIN");
  try {
    for (const s of statements) await q(s, [tenants]);
    // OVERRIDING SYSTEM VALUE keeps the saved ids of identity columns (workflow_action_log's).
    const cleared = (t: string) =>
      (saved.rows[t] as Record<string, unknown>[]).map((row) => ({ ...row, ...Object.fromEntries((CYCLIC[t] ?? []).map((c) => [c, null])) }));
    for (const t of TABLES)
      await q(`INSERT INTO ${t} OVERRIDING SYSTEM VALUE SELECT * FROM jsonb_populate_recordset(NULL::${t}, $1::jsonb)`, [JSON.stringify(cleared(t))]);
    for (const [t, columns] of Object.entries(CYCLIC)) {
      for (const c of columns) {
        await q(`UPDATE ${t} x SET ${c} = s.${c} FROM jsonb_populate_recordset(NULL::${t}, $1::jsonb) s WHERE x.id = s.id AND s.${c} IS NOT NULL`, [
          JSON.stringify(saved.rows[t]),
        ]);
      }
    }
    await q("COMMIT");
  } catch (e) {
    await q("ROLLBACK");
    throw e;
  }
  for (const [key, bytes] of saved.objects) if (!(await env.FILES.head(key))) await env.FILES.put(key, bytes);
}
