// `createArtifactDownloadURL`: the credential-free link the REST route
// `…/artifacts/{artifactId}/download-url` makes, absolute on the service's
// public origin; the result is that route's `{ url, expires_at }`.
import { artifactDownloadUrl } from "../../../entity/artifacts/service";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { fileDeclarations } from "../../../definition/language/actions/files";

export const createArtifactDownloadURL = action(fileDeclarations.createArtifactDownloadURL, {
  permissions: ["entity:read"],
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => {
      const deps = { ...services, secret: ctx.env.MASTER_KEY, origin: ctx.origin, clock: { now: ctx.now } };
      return { kind: "success", result: await artifactDownloadUrl(deps, config.entityId, config.artifactId, { ttl: config.ttl, version: config.version }) };
    });
  },
});
