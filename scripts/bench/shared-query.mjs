// Part of `npm run bench -- query`: the same queries over a type another
// tenant shares, against the owner running them on its own type. The owner is
// the bench tenant; a second tenant gets a read share of the type and asks
// for it by name, so its requests take the shared path (the owning tenant and
// the shares looked up, then the same statement over the owner's rows).
// Owner and target alternate which goes first in every round, so load from
// elsewhere on the machine falls on both alike; both must answer the same ids.
import { performance } from "node:perf_hooks";
import { createTenant } from "../lib/db.mjs";
import { figure, round } from "../lib/bench-env.mjs";
import { percentile } from "../lib/percentile.mjs";

const TARGET_SHARED_OVER_OWN = 1.2;

function sameRows(name, round, own, shared) {
  const a = own.map((e) => e.id).join(",");
  const b = shared.map((e) => e.id).join(",");
  if (!own.length) throw new Error(`${name} round ${round}: the owner's query found no row, so it measured nothing`);
  if (a !== b)
    throw new Error(`${name} round ${round}: the owner got ${own.length} rows [${own.slice(0, 3).map((e) => e.id)}...], the share's target ${shared.length}`);
  if (shared.some((e) => e.source_type !== "shared"))
    throw new Error(`${name} round ${round}: a row answered to the share's target is not marked source_type "shared"`);
}

/**
 * Shares the bench tenant's type `typeId` with a new tenant, then runs every
 * shape (`body(round)` gives the request body of a round) as both, `warmup`
 * rounds unmeasured and `requests` measured. One figure per shape: shared
 * p50 over own p50, with both sides' p50 and p95.
 */
export async function sharedFigures(env, { typeId, shapes, warmup, requests, rows }, log) {
  const target = await createTenant(env.pool, "bench-shared");
  await env.api("POST", "/access/shares", { resource_type: "entity_type", resource_id: typeId, target_tenant_id: target.tenant_id });
  const asOwner = env.api;
  const asTarget = env.apiAs(target);

  const samples = new Map(shapes.map((s) => [s.name, { own: [], shared: [] }]));
  log(`[bench] query: shared type, ${shapes.length} shapes as owner and as share target, ${warmup} warm-up and ${requests} measured requests each`);
  for (let r = 0; r < warmup + requests; r++) {
    for (const shape of shapes) {
      const body = shape.body(r);
      const time = async (api) => {
        const started = performance.now();
        const res = await api("POST", "/entity/query", body);
        return [performance.now() - started, res.data];
      };
      let own, shared;
      if (r % 2 === 0) {
        own = await time(asOwner);
        shared = await time(asTarget);
      } else {
        shared = await time(asTarget);
        own = await time(asOwner);
      }
      sameRows(shape.name, r, own[1], shared[1]);
      if (r < warmup) continue;
      samples.get(shape.name).own.push(own[0]);
      samples.get(shape.name).shared.push(shared[0]);
    }
    if ((r + 1) % 50 === 0) log(`[bench] query: shared round ${r + 1}`);
  }

  return shapes.map(({ name }) => {
    const own = [...samples.get(name).own].sort((a, b) => a - b);
    const shared = [...samples.get(name).shared].sort((a, b) => a - b);
    const ratio = percentile(shared, 50) / percentile(own, 50);
    return figure(`shared_over_own_${name}`, round(ratio), "x", null, null, {
      shared_p50: round(percentile(shared, 50)),
      shared_p95: round(percentile(shared, 95)),
      own_p50: round(percentile(own, 50)),
      own_p95: round(percentile(own, 95)),
      meets_target: ratio <= TARGET_SHARED_OVER_OWN,
      requests: own.length,
      rows,
    });
  });
}
