// `exportEntitiesToCsv`: the REST export (POST /entity/entities/export) into
// a CSV temp file: the same checks before the first byte, the same pages read
// in one snapshot and the same line writer, streamed into the file as pages
// come. The options are the export body's, in camelCase.
import { exportStream, prepareExport, type ExportInput } from "../../../entity/csv/export";
import { exportBody } from "../../../entity/csv/routes";
import { fileNameSchema } from "../../../files/schemas";
import type { JsonSchema } from "../../../lib/validate";
import { saveTempFile } from "../file-ref";
import type { ActionModule } from "../types";
import { withTempFiles } from "../temp-output";

interface ExportEntitiesConfig {
  typeName: string;
  filter?: unknown;
  sort?: ExportInput["sort"];
  columns?: string[];
  escapeFormulas?: boolean;
  /** The temp file's name; `<type name>.csv` by default, as the REST download is named. */
  name?: string;
}

const rest = exportBody.properties;

export const exportEntitiesToCsv: ActionModule<ExportEntitiesConfig> = {
  name: "exportEntitiesToCsv",
  configSchema: {
    type: "object",
    required: ["typeName"],
    properties: {
      typeName: rest.type_name,
      filter: rest.filter,
      // A readonly `as const` fragment; the schema checker never writes to it.
      sort: rest.sort as unknown as JsonSchema,
      columns: rest.columns,
      escapeFormulas: rest.escape_formulas,
      name: fileNameSchema,
    },
    additionalProperties: false,
  },
  async execute(config, _invocation, ctx) {
    return withTempFiles(ctx, async (services) => {
      const input: ExportInput = { type_name: config.typeName, filter: config.filter, sort: config.sort, columns: config.columns, escape_formulas: config.escapeFormulas };
      const prepared = await prepareExport(services.tenant, input);
      const { body, done } = exportStream(services.tenant, prepared, input);
      let ref;
      try {
        ref = await saveTempFile(services, { name: config.name ?? `${prepared.type.name}.csv`, contentType: "text/csv", body });
      } catch (e) {
        // The export waits on a reader: a refused upload (past the byte cap) must end it, freeing its connection.
        await body.cancel(e).catch(() => {});
        await done;
        throw e;
      }
      await done;
      return { kind: "success", result: ref };
    });
  },
};
