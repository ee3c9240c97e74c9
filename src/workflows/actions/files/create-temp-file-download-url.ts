// `createTempFileDownloadURL`: the credential-free link
// `POST /entity/temp-files/{id}/download-url` makes (`entity:read`), absolute
// on the service's public origin, never outliving the file.
import { tempFileDownloadUrl } from "../../../entity/temp-files/service";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { fileDeclarations } from "../../../definition/language/actions/files";

export const createTempFileDownloadURL = action(fileDeclarations.createTempFileDownloadURL, {
  permissions: ["entity:read"],
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => {
      const deps = { ...services, secret: ctx.env.MASTER_KEY, origin: ctx.origin, clock: { now: ctx.now } };
      return { kind: "success", result: await tempFileDownloadUrl(deps, config.tempFileId, config.ttl) };
    });
  },
});
