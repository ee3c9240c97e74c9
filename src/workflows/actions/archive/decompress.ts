// What zipDecompress and archiveDecompress share: open the temp file, settle
// its format from its first bytes, extract.
import { ApiError } from "../../../lib/errors";
import { openTempFile, tempFileIdSchema } from "../file-ref";
import type { ConfinedServices } from "../../../access/confined-services";
import { concat, readHead } from "./bytes";
import { detectFormat, SNIFF_BYTES, type ArchiveFormat } from "./detect";
import { extractEntries, type ExtractedFile } from "./extract";
import { MAX_ARCHIVE_ENTRIES } from "./limits";
import { tarEntries } from "./tar-entries";
import { zipEntries } from "./zip-entries";
import type { Accepted } from "../../../lib/validate";

export const decompressProperties = {
  tempFileId: tempFileIdSchema,
  /** Path prefixes (whole segments) of the files to extract; all files when absent. */
  include: { type: "array", minItems: 1, maxItems: MAX_ARCHIVE_ENTRIES, items: { type: "string", minLength: 1, maxLength: 1024 } },
} as const;

/** zipDecompress's config; archiveDecompress adds `format`. */
export const decompressConfigSchema = { type: "object", required: ["tempFileId"], properties: decompressProperties, additionalProperties: false } as const;

export type DecompressConfig = Accepted<typeof decompressConfigSchema>;

/**
 * `format` "detect" reads it from the magic numbers; a named one is taken as
 * said, except that zip must look like a zip (zipDecompress is asked to
 * read nothing else).
 */
export async function decompress(services: ConfinedServices, config: DecompressConfig, format: ArchiveFormat | "detect"): Promise<{ files: ExtractedFile[] }> {
  const { ref, body } = await openTempFile(services, config.tempFileId);
  const head = await readHead(body, SNIFF_BYTES);
  const seen = detectFormat(concat(head.chunks));
  const chosen = format === "detect" ? seen : format;
  if (!chosen || (chosen === "zip" && seen !== "zip")) {
    await head.stream.cancel().catch(() => undefined);
    const expected = chosen ?? "zip, tar or tar.gz";
    throw new ApiError("UNPROCESSABLE_ENTITY", `Temp file ${ref.temp_file_id} (${ref.name}) is not a ${expected} archive`, {
      temp_file_id: ref.temp_file_id,
      format: expected,
    });
  }
  const entries = chosen === "zip" ? zipEntries(head.stream) : tarEntries(head.stream, chosen);
  return { files: await extractEntries(services, entries, config.include) };
}
