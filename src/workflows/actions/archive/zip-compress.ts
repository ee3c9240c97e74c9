// `zipCompress`: temp files packed into one zip temp file. Each input streams
// through fflate's Zip (deflate) straight into the new temp file: one input
// chunk and its deflated output are held at a time, never the whole archive.
import { Zip, ZipDeflate } from "fflate";
import { ApiError } from "../../../lib/errors";
import { openTempFile, saveTempFile } from "../file-ref";
import type { ConfinedServices } from "../../../access/confined-services";
import { action } from "../action";
import type { Accepted } from "../../../lib/validate";
import { streamOf } from "./bytes";
import { entryPath } from "./entry-path";
import { MAX_TOTAL_BYTES, overLimit } from "./limits";
import { TEMP_FILES } from "../temp-output";
import { withServices } from "../../../access/confined-services";
import { archiveDeclarations } from "../../../definition/language/actions/archive";

export const zipCompress = action(archiveDeclarations.zipCompress, {
  permissions: TEMP_FILES,
  execute: (config, _invocation, ctx) =>
    withServices(ctx, async (services) => {
      // Paths given in the config are checked before any byte is read; a default one when its file is opened.
      for (const f of config.files) if (f.path !== undefined) entryPath(f.path);
      const body = streamOf(zipped(services, config.files));
      const ref = await saveTempFile(services, { name: config.name ?? "archive.zip", contentType: "application/zip", body });
      return { kind: "success", result: ref };
    }),
});

/** The zip's bytes, made as the reader asks for them. */
async function* zipped(services: ConfinedServices, files: Accepted<typeof archiveDeclarations.zipCompress.configSchema>["files"]): AsyncGenerator<Uint8Array> {
  const out: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((err, chunk) => (err ? (failure ??= err) : out.push(chunk)));
  function* ready(): Generator<Uint8Array> {
    if (failure) throw failure;
    while (out.length) yield out.shift()!;
  }
  const paths = new Set<string>();
  let total = 0;
  for (const file of files) {
    const { ref, body } = await openTempFile(services, file.tempFileId);
    const reader = body.getReader();
    try {
      const path = entryPath(file.path ?? ref.name);
      if (paths.has(path)) throw new ApiError("UNPROCESSABLE_ENTITY", `Two files would be zipped as "${path}"`, { entry: path });
      paths.add(path);
      if ((total += ref.size) > MAX_TOTAL_BYTES) throw overLimit("MAX_TOTAL_BYTES", MAX_TOTAL_BYTES, `The files to zip pass ${MAX_TOTAL_BYTES} bytes together`);
      const entry = new ZipDeflate(path, { level: 6 });
      zip.add(entry);
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        entry.push(r.value);
        yield* ready();
      }
      entry.push(new Uint8Array(0), true);
      yield* ready();
    } finally {
      reader.releaseLock();
      await body.cancel().catch(() => undefined);
    }
  }
  zip.end();
  yield* ready();
}
