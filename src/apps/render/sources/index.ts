// The data sources of one page in one render (docs/apps.md, "Data sources"). A
// source resolves when first read: its smart values against the page scope,
// then its producer (one entry of producers.ts per key: `$query`, `$http`,
// `$rows`, `$typeSchema`), then its `$pipe`. Sources whose resolved form is the same JSON are fetched once
// until `invalidate()` (a command wrote); every expression draws from the
// render's one budget; past the render's deadline a source fails with
// DeadlineExceeded rather than start (the page waiting for it races the
// deadline, and a `$http` request ends by it), so its widget is dropped and
// the rest answers.
import { ApiError } from "../../../lib/errors";
import { systemClock } from "../../../lib/clock";
import { smartValueDirectives } from "../../../lib/smart-values";
import type { PageSources, SourceEnvironment } from "../contracts";
import { PRODUCER_ENTRIES, type Producer } from "./producers";
import { isSingle } from "./query";
import { DeadlineExceeded, SourceRun, type Fetched, type Obj, type Prepared } from "./run";
import { isObject } from "../../../lib/is-object";

export { DEFAULT_QUERY_LIMIT } from "./query";
export { MAX_HTTP_ROWS } from "./http";
export { DeadlineExceeded } from "./run";

/** The value a source answers and what `referenceData` needs of it. */
interface Resolved {
  value: unknown;
  rows: unknown[];
  total: number;
}

/**
 * The sources of one page. `grids` names, per source, the widget bound to
 * it (its `dataSource`): a paged source (`$http` with `paged`, `$query`
 * with `paged: true`) read by an expression pages as that grid does. `reference` pages as the widget it is asked for.
 */
export function pageSources(dataSources: Record<string, unknown>, env: SourceEnvironment, grids: Record<string, string> = {}): PageSources {
  const clock = env.clock ?? systemClock;
  let fetches = new Map<string, Promise<Fetched>>();

  /** The fetch of a prepared source, shared by every source that resolved to the same JSON. */
  const fetched = (prepared: Prepared): Promise<Fetched> => {
    let pending = fetches.get(prepared.key);
    if (!pending) {
      pending = prepared.fetch();
      // Whoever reads it reports a failure; a fetch nobody awaits again must not surface as unhandled.
      pending.catch(() => undefined);
      fetches.set(prepared.key, pending);
    }
    return pending;
  };

  async function produce(producer: Producer, run: SourceRun, source: Obj, scope: Obj, gridId: string | undefined): Promise<Fetched> {
    const produced = await producer(run, source, scope, gridId);
    return "fetch" in produced ? fetched(produced) : produced;
  }

  async function resolve(name: string, scope: Obj, gridId: string | undefined, joining: readonly string[]): Promise<Resolved> {
    if (clock.now() >= env.deadline) throw new DeadlineExceeded(name);
    const source = Object.hasOwn(dataSources, name) ? dataSources[name] : undefined;
    const named = isObject(source) ? PRODUCER_ENTRIES.filter(([key]) => source[key] !== undefined) : [];
    if (!isObject(source) || named.length !== 1) {
      throw new ApiError(
        "UNPROCESSABLE_ENTITY",
        `The page has no data source ${JSON.stringify(name)} with one producer (${PRODUCER_ENTRIES.map(([key]) => key).join(", ")})`,
      );
    }
    const run = new SourceRun(name, env);
    const { rows, total } = await produce(named[0][1], run, source, scope, gridId);
    let value: unknown = rows;
    if (source.$pipe !== undefined) {
      const join = async (other: string) => {
        if (joining.includes(other)) throw new ApiError("UNPROCESSABLE_ENTITY", `Data source ${name} joins ${other}, which joins back to it`);
        return (await resolve(other, scope, grids[other], [...joining, other])).rows;
      };
      value = await run.resolve({ $rows: { $literal: rows }, $pipe: source.$pipe }, scope, smartValueDirectives(join));
    }
    if (isSingle(source)) value = Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
    const answered = Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];
    return { value, rows: answered, total: total ?? answered.length };
  }

  return {
    read: async (name, scope) => (await resolve(name, scope, grids[name], [name])).value,
    reference: async (name, scope, widgetId) => {
      const { rows, total } = await resolve(name, scope, widgetId, [name]);
      return { rows, total };
    },
    invalidate: () => {
      fetches = new Map();
    },
  };
}
