// `listEntityArtifacts`: `GET /entity/entities/{id}/artifacts` with its query
// in camelCase; the result is that route's answer, `{ data, pagination }`.
import { pageOf } from "../../../lib/pagination";
import { listArtifacts } from "../../../entity/artifacts/service";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { fileDeclarations } from "../../../definition/language/actions/files";

export const listEntityArtifacts = action(fileDeclarations.listEntityArtifacts, {
  permissions: ["entity:read"],
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => {
      const query = { artifact_type: config.artifactType, artifact_type_in: config.artifactTypeIn, include_versions: config.includeVersions };
      return { kind: "success", result: await listArtifacts(services, config.entityId, query, pageOf(config)) };
    });
  },
});
