// `exportEntitiesToCsv`: the REST export (POST /entity/entities/export) into
// a CSV temp file: the same checks before the first byte, the same pages read
// in one snapshot and the same line writer, streamed into the file as pages
// come. The options are the export body's, in camelCase.
import { exportStream, prepareExport, type ExportInput } from "../../../entity/csv/export";
import { exportBody } from "../../../entity/csv/schemas";
import { saveTempFile } from "../file-ref";
import { restBody } from "../../../lib/rest-body";
import { action, onTypes } from "../action";
import { withServices } from "../../../access/confined-services";
import { csvDeclarations } from "../../../definition/language/actions/csv";

export const exportEntitiesToCsv = action(csvDeclarations.exportEntitiesToCsv, {
  permissions: (config) => [...onTypes("read", [config.typeName]), "entity:create"],
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => {
      const { name, ...rest } = config;
      const input = restBody<ExportInput>(exportBody, rest);
      const prepared = await prepareExport(services.tenant, input);
      const { body, done } = exportStream(services.tenant, prepared, input);
      let ref;
      try {
        ref = await saveTempFile(services, { name: name ?? `${prepared.type.name}.csv`, contentType: "text/csv", body });
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
});
