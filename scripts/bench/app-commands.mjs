// Part of `npm run bench -- apps`: a host's user acts. One render posts an
// action whose `actions` command upserts one entity (`upsertEntity`, under
// `dataMutation`), and the answer re-renders the page, whose grid reads a
// `$query` of the entity's group: the new row must be in it.
//
// Baseline, in the same run on the same machine: the same upsert through
// POST /entity/entities/upsert and the same query through POST
// /entity/query (with include_count, as a `$query` source counts), one
// after the other, as the bench tenant's API token. Render and baseline
// alternate which goes first; each writes its own row (keys differ).
// Target: p50 of the acting render at most 1.3x the baseline's p50.
import { performance } from "node:perf_hooks";
import { figure, round } from "../lib/bench-env.mjs";
import { percentile } from "../lib/percentile.mjs";

const ACTIONS = Number(process.env.BENCH_APPS_ACTIONS ?? 100);
const WARMUP = 10;
const TARGET_RATIO = 1.3;
const GROUPS = 200;
const SEED_ROWS = 1000;
const TYPE = "BenchAppNote";
const PROVIDER = "host";
const COMPANY = "bench-co";

const schema = { type: "object", required: ["key", "group"], properties: { key: { type: "string" }, group: { type: "string" }, n: { type: "integer" } } };
const config = { identifier_key: ["key"], indexed_attributes: [{ path: ["group"], type: "text" }] };

const query = (group) => ({ type_name: TYPE, filter: { operator: "eq", path: ["attributes", "group"], value: group }, limit: 20 });
const row = (key, group, n) => ({ name: key, attributes: { key, group, n } });

function specDocument() {
  return {
    dashboards: {
      main: {
        name: "Main",
        surfaces: { dashboard: "home" },
        pages: {
          home: {
            dataSources: {
              notes: { $query: { typeName: TYPE, filter: { operator: "eq", path: ["attributes", "group"], value: "{{ context.group }}" }, limit: 20 } },
            },
            widgets: {
              grid: { widgetComponent: "data_grid", dataSource: "notes" },
              save: {
                widgetComponent: "button",
                actionHandlers: {
                  save: [
                    {
                      kind: "actions",
                      stepId: "saved",
                      permissionSet: "dataMutation",
                      // An action's config reads the list's input, which reads the command scope.
                      input: { key: "{{ payload.key }}", group: "{{ context.group }}", n: "{{ payload.n }}" },
                      actions: [
                        {
                          name: "upsertEntity",
                          config: {
                            typeName: TYPE,
                            onConflict: "merge",
                            data: [{ name: "{{ input.key }}", attributes: { key: "{{ input.key }}", group: "{{ input.group }}", n: "{{ input.n }}" } }],
                          },
                        },
                      ],
                    },
                  ],
                },
              },
            },
            layout: [["save"], ["grid"]],
          },
        },
      },
    },
    providers: {
      [PROVIDER]: {
        auth: { type: "bearer" },
        autoCreateUsers: true,
        identity: { user_external_id: { source: "body", path: "user" }, company_external_id: { source: "body", path: "company" } },
      },
    },
    policies: { writers: { grants: [{ resource: "entity", actions: ["read", "create", "update"], resourceName: TYPE }] } },
    defaultPolicy: "writers",
  };
}

async function setup(env) {
  await env.api("POST", "/entity/entity-types", { name: TYPE, schema, status: "active", config });
  const rows = Array.from({ length: SEED_ROWS }, (_, i) => row(`seed-${i}`, `g-${i % GROUPS}`, i));
  await env.api("POST", "/entity/entities/upsert", { type_name: TYPE, data: rows });
  const spec = (await env.api("POST", "/definition/specs", { name: "Bench actions", spec_document: specDocument() })).data;
  await env.api("PUT", `/apps/${spec.id}/config`, { config: {} });
  const companies = await env.api("GET", `/access/external-companies?provider=${PROVIDER}`);
  const company =
    companies.data.find((c) => c.external_id === COMPANY) ??
    (await env.api("POST", "/access/external-companies", { provider: PROVIDER, external_id: COMPANY })).data;
  const integration = (await env.api("POST", `/apps/${spec.id}/integrations`, { external_company_id: company.id })).data;
  const { raw_token } = await env.api("PUT", `/apps/${spec.id}/integrations/${integration.id}/token`);
  return { integrationId: integration.id, token: raw_token };
}

/** One acting render; checks the upsert's row is in the re-rendered grid. */
async function act(env, app, key, group, n) {
  const started = performance.now();
  const res = await fetch(`${env.base}/apps/run/${app.integrationId}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${app.token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ user: "u-1", company: COMPANY, context: { group }, action: { widgetId: "save", handler: "save", payload: { key, n } } }),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`the acting render answered ${res.status} ${text.slice(0, 500)}`);
  const { data } = JSON.parse(text);
  const errors = data.notifications.filter((x) => x.level === "ERROR");
  if (errors.length) throw new Error(`the acting render notified ${JSON.stringify(errors)}`);
  if (!data.referenceData.grid.rows.some((r) => r.name === key)) throw new Error(`the re-rendered grid lacks the upserted ${key}`);
  return ms;
}

async function baseline(env, key, group, n) {
  const started = performance.now();
  await env.api("POST", "/entity/entities/upsert", { type_name: TYPE, on_conflict: "merge", data: [row(key, group, n)] });
  const found = await env.api("POST", "/entity/query", { ...query(group), include_count: true });
  const ms = performance.now() - started;
  if (!found.data.some((e) => e.name === key)) throw new Error(`the REST query lacks the upserted ${key}`);
  return ms;
}

export async function runCommands(env, log) {
  const app = await setup(env);
  const ours = [];
  const base = [];
  log(`[bench] apps: ${WARMUP} warm-up and ${ACTIONS} measured acting renders, each against its REST upsert and query`);
  for (let r = 0; r < WARMUP + ACTIONS; r++) {
    const group = `g-${(r * 37) % GROUPS}`;
    let mine, theirs;
    if (r % 2 === 0) {
      mine = await act(env, app, `act-${r}`, group, r);
      theirs = await baseline(env, `rest-${r}`, group, r);
    } else {
      theirs = await baseline(env, `rest-${r}`, group, r);
      mine = await act(env, app, `act-${r}`, group, r);
    }
    if (r < WARMUP) continue;
    ours.push(mine);
    base.push(theirs);
  }
  const sorted = (v) => [...v].sort((a, b) => a - b);
  const p50 = percentile(sorted(ours), 50);
  const baseP50 = percentile(sorted(base), 50);
  const f = figure("action_upsert_render_p50", round(p50), "ms", round(baseP50), round(p50 / baseP50), {
    target_ratio: TARGET_RATIO,
    meets_target: p50 / baseP50 <= TARGET_RATIO,
    p95: round(percentile(sorted(ours), 95)),
    baseline_p95: round(percentile(sorted(base), 95)),
    actions: ours.length,
  });
  log(`[bench] apps: ${JSON.stringify(f)}`);
  return [f];
}
