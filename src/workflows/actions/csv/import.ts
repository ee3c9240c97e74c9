// `importEntitiesFromCsv`: a CSV temp file through the REST import
// (POST /entity/entities/import): the same reading, conversion, validation,
// batches and events, and the same answer. The options are the import
// config's, in camelCase.
import { importEntities, importConfigSchema, type ImportConfig } from "../../../entity/csv/import";
import { openTempFile } from "../file-ref";
import { restBody } from "../../../lib/rest-body";
import { upsertActionResult } from "../upsert-result";
import { action, onTypes } from "../action";
import { withServices } from "../../../access/confined-services";
import { csvDeclarations } from "../../../definition/language/actions/csv";

export const importEntitiesFromCsv = action(csvDeclarations.importEntitiesFromCsv, {
  permissions: (config) => [
    "entity:read",
    ...onTypes("create", [config.typeName ?? config.entityTypeName ?? config.entityTypeId]),
    ...onTypes("update", [config.typeName ?? config.entityTypeName ?? config.entityTypeId]),
  ],
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => {
      const { body } = await openTempFile(services, config.tempFileId);
      try {
        const { tempFileId: _, ...rest } = config;
        const result = await importEntities(services.entity, restBody<ImportConfig>(importConfigSchema, rest), body);
        // A run has no waitUntil: the rows' events reach the queue before the action ends.
        await services.published();
        return { kind: "success", result: upsertActionResult(result) };
      } finally {
        // Refused before the body was read (unknown type): the file is not fetched further.
        await body.cancel().catch(() => {});
      }
    });
  },
});
