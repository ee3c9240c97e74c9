// `createTempFileUploadUrl`: upload slots minted for the render's user
// (docs/apps.md, "Uploads"); the slots and the link's life leave the
// answer, so they resolve as computed and are checked where they are minted.
import { command } from "./command";

export const createTempFileUploadUrl = command({
  kind: "createTempFileUploadUrl",
  async run(step, ctx) {
    const slots = await ctx.written(step.slots);
    const ttl = step.ttl === undefined ? undefined : await ctx.written(step.ttl);
    return ctx.services.uploadSlots({ slots, type: step.type, ttl });
  },
});

export const uploadCommands = { createTempFileUploadUrl };
