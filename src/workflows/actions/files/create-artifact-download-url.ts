// `createArtifactDownloadURL`: the credential-free link the REST route
// `…/artifacts/{artifactId}/download-url` makes, absolute on the service's
// public origin; the result is that route's `{ url, expires_at }`.
import { uuidSchema } from "../../../lib/schemas";
import { artifactVersionSchema } from "../../../lib/files/schemas";
import { artifactDownloadUrl } from "../../../entity/artifacts/service";
import { DOWNLOAD_TTL } from "../../../entity/artifacts/schemas";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";

export const createArtifactDownloadURL = action({
  name: "createArtifactDownloadURL",
  permissions: ["entity:read"],
  configSchema: {
    type: "object",
    required: ["entityId", "artifactId"],
    properties: {
      entityId: uuidSchema,
      artifactId: uuidSchema,
      version: artifactVersionSchema,
      /** Seconds the link is valid. */
      ttl: { type: "integer", minimum: 1, maximum: DOWNLOAD_TTL.max },
    },
    additionalProperties: false,
  },
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => {
      const deps = { ...services, secret: ctx.env.MASTER_KEY, origin: ctx.origin, clock: { now: ctx.now } };
      return { kind: "success", result: await artifactDownloadUrl(deps, config.entityId, config.artifactId, { ttl: config.ttl, version: config.version }) };
    });
  },
});
