// `createTempFileDownloadURL`: the credential-free link
// `POST /entity/temp-files/{id}/download-url` makes (`entity:read`), absolute
// on the service's public origin, never outliving the file.
import { tempFileDownloadUrl } from "../../../entity/temp-files/service";
import { LINK_TTL } from "../../../entity/temp-files/schemas";
import { tempFileIdSchema } from "../file-ref";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";

export const createTempFileDownloadURL = action({
  name: "createTempFileDownloadURL",
  permissions: ["entity:read"],
  configSchema: {
    type: "object",
    required: ["tempFileId"],
    properties: {
      tempFileId: tempFileIdSchema,
      /** Seconds the link is valid, shortened to the file's remaining life. */
      ttl: { type: "integer", minimum: 1, maximum: LINK_TTL.max },
    },
    additionalProperties: false,
  },
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => {
      const deps = { ...services, secret: ctx.env.MASTER_KEY, origin: ctx.origin, clock: { now: ctx.now } };
      return { kind: "success", result: await tempFileDownloadUrl(deps, config.tempFileId, config.ttl) };
    });
  },
});
