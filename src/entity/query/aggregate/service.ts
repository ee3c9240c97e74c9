// POST /entity/query/aggregate (docs/query.md, Aggregates): one statement per
// page of groups, on the owner path. Like a count, the groups answer values,
// not rows: the tenant predicate of compileQuery's rows is what keeps another
// tenant's out (test/query/aggregate.test.ts proves it through the API).
import type { TenantDb } from "../../../db/client";
import { decodeCursor } from "../../../lib/cursor";
import { keysetPaging } from "../../../lib/pagination";
import { validationFailed } from "../../../lib/validate";
import { TypeReader } from "../../entity-types/cache";
import type { QueryType } from "../operands";
import { relatedTypeNames } from "../filter";
import { compiled } from "../../../db/params";
import { applyTrigramThreshold, readTypes } from "../service";
import { warningsField } from "../warnings";
import { aggregateStatement, compileAggregate, type AggregateInput } from "./compile";
import { presentGroup } from "./values";

export const DEFAULT_GROUP_LIMIT = 100;

export interface AggregateAnswer {
  data: Record<string, unknown>[];
  next_cursor?: string;
  warnings?: string[];
}

/** A value with every object's keys in one order: a workflow's config comes back from jsonb with its keys reordered. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
  );
}

/** What a cursor continues: the same type and the same request but for limit and cursor. */
function cursorScope(type: QueryType, input: AggregateInput): string {
  const { filter = null, group_by = [], aggregates, sort = [] } = input;
  return JSON.stringify(canonical({ aggregate: type.id, filter, group_by, aggregates, sort }));
}

export async function aggregateGroups(tenant: TenantDb, cursorSecret: string, input: AggregateInput): Promise<AggregateAnswer> {
  const limit = input.limit ?? DEFAULT_GROUP_LIMIT;
  return tenant.read(async (reader) => {
    const { root, types, scope } = await readTypes(reader, new TypeReader(reader, false), input.type_name, relatedTypeNames(input.filter));
    const plan = compileAggregate(scope, root, types, input);
    const cursorOf = cursorScope(root, input);
    let position: unknown[] | null = null;
    if (input.cursor !== undefined) {
      position = await decodeCursor(cursorSecret, cursorOf, input.cursor);
      if (!plan.keys.length || position.length !== plan.keys.length)
        throw validationFailed(["cursor: does not belong to this query"], "cursor does not belong to this query");
    }
    const text = aggregateStatement(plan, position, limit);
    await applyTrigramThreshold(reader, plan.compilation);
    const { rows } = await reader.run<Record<string, unknown>>(compiled(text, plan.params.values));
    const data = rows.map((row) => presentGroup(row, plan.groups, plan.aggregates));
    const last = rows[rows.length - 1];
    const paging = plan.keys.length
      ? await keysetPaging(cursorSecret, cursorOf, rows.length, limit, last ? plan.keys.map((_, i) => last[`c${i}`] ?? null) : null)
      : {};
    return { data, ...paging, ...warningsField(plan.compilation.warnings) };
  });
}
