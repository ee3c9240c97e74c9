// `listEntityArtifacts`: `GET /entity/entities/{id}/artifacts` with its query
// in camelCase; the result is that route's answer, `{ data, pagination }`.
import { pageOf } from "../../../lib/pagination";
import { paginationQuery, uuidSchema } from "../../../lib/schemas";
import { listArtifacts } from "../../../entity/artifacts/service";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";

export const listEntityArtifacts = action({
  name: "listEntityArtifacts",
  permissions: ["entity:read"],
  configSchema: {
    type: "object",
    required: ["entityId"],
    properties: {
      entityId: uuidSchema,
      artifactType: { type: "string", minLength: 1 },
      artifactTypeIn: { type: "array", items: { type: "string", minLength: 1 }, maxItems: 100 },
      includeVersions: { type: "boolean" },
      ...paginationQuery,
    },
    additionalProperties: false,
  },
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => {
      const query = { artifact_type: config.artifactType, artifact_type_in: config.artifactTypeIn, include_versions: config.includeVersions };
      return { kind: "success", result: await listArtifacts(services, config.entityId, query, pageOf(config)) };
    });
  },
});
