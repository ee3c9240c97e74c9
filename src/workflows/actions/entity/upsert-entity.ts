// `upsertEntity`: POST /entity/entities/upsert as an action, through the same
// service: the type's schema and identifier key checked for every row before
// anything is written, the rows written in batches, `created` and `updated`
// events published (none with `suppressEvents`). The config is the upsert
// body in camelCase (rows' inline `relationships` too; `attributes` as
// written); the result is the route's `data`: counts, `ids` in input order
// (left out past MAX_RESULT_IDS), `errors` for skipped relationships.
import { guardJson } from "../../../lib/input-guard";
import type { RowSource } from "../../../entity/upsert/body-scan";
import { upsertBody } from "../../../entity/upsert/schemas";
import { upsertEntities, type UpsertInput } from "../../../entity/upsert/service";
import { withServices } from "../../../access/confined-services";
import { action, onTypes } from "../action";
import { restBody } from "../../../lib/rest-body";
import { upsertActionResult } from "../upsert-result";
import { entityDeclarations, upsertRowsBody } from "../../../definition/language/actions/entity";

export const upsertEntity = action(entityDeclarations.upsertEntity, {
  permissions: (config) => [...onTypes("create", [config.typeName]), ...onTypes("update", [config.typeName])],
  async execute(config, _invocation, ctx) {
    const { data, ...envelope } = config;
    return withServices(ctx, async (services) => {
      try {
        const result = await upsertEntities(
          services.entity,
          restBody<UpsertInput>(upsertBody, envelope),
          rowSource(restBody<unknown[]>(upsertRowsBody.properties.data, data)),
        );
        return { kind: "success", result: upsertActionResult(result) };
      } finally {
        // Batches committed before a refusal keep their events; they go out either way.
        await services.published();
      }
    });
  },
});

/** The config's rows as the upsert service reads a body's: each guarded as the route guards a row, errors at `config.data[i]`. */
function rowSource(rows: unknown[]): RowSource {
  const label = (i: number) => `config.data[${i}]`;
  return {
    count: rows.length,
    text: (i) => JSON.stringify(rows[i]),
    parse: (i) => {
      guardJson(rows[i], { base: label(i), depth: 2 });
      return rows[i];
    },
    label,
  };
}
