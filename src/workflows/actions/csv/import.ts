// `importEntitiesFromCsv`: a CSV temp file through the REST import
// (POST /entity/entities/import): the same reading, conversion, validation,
// batches and events, and the same answer. The options are the import
// config's, in camelCase.
import { importEntities, importConfigSchema, type ImportConfig } from "../../../entity/csv/import";
import { forbidden, uuidSchema } from "../../../lib/schemas";
import { openTempFile, tempFileIdSchema } from "../file-ref";
import type { ActionModule } from "../types";
import { withTempFiles } from "../temp-output";

interface ImportEntitiesConfig {
  tempFileId: string;
  typeName?: string;
  entityTypeId?: string;
  onConflict?: ImportConfig["on_conflict"];
  delimiter?: string;
  columnMapping?: Record<string, string>;
  suppressEvents?: boolean;
}

const rest = importConfigSchema.properties;

export const importEntitiesFromCsv: ActionModule<ImportEntitiesConfig> = {
  name: "importEntitiesFromCsv",
  configSchema: {
    type: "object",
    required: ["tempFileId"],
    properties: {
      tempFileId: tempFileIdSchema,
      typeName: rest.entity_type_name,
      entityTypeId: uuidSchema,
      onConflict: { enum: [...rest.on_conflict.enum] },
      delimiter: rest.delimiter,
      columnMapping: rest.column_mapping,
      suppressEvents: rest.suppress_events,
    },
    additionalProperties: false,
    // Exactly one of the two names the type.
    anyOf: [{ required: ["typeName"] }, { required: ["entityTypeId"] }],
    dependentSchemas: { typeName: { properties: { entityTypeId: forbidden } } },
  },
  async execute(config, _invocation, ctx) {
    return withTempFiles(ctx, async (services) => {
      const { body } = await openTempFile(services, config.tempFileId);
      try {
        const result = await importEntities(
          services.entity,
          {
            entity_type_id: config.entityTypeId,
            entity_type_name: config.typeName,
            on_conflict: config.onConflict,
            delimiter: config.delimiter,
            column_mapping: config.columnMapping,
            suppress_events: config.suppressEvents,
          },
          body,
        );
        // A run has no waitUntil: the rows' events reach the queue before the action ends.
        await services.published();
        return { kind: "success", result };
      } finally {
        // Refused before the body was read (unknown type): the file is not fetched further.
        await body.cancel().catch(() => {});
      }
    });
  },
};
