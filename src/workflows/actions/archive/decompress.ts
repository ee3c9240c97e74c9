// What zipDecompress and archiveDecompress share: open the temp file, settle
// its format from its first bytes, extract.
import { ApiError } from "../../../lib/errors";
import { openTempFile } from "../file-ref";
import type { ConfinedServices } from "../../../access/confined-services";
import { concat, readHead } from "./bytes";
import { detectFormat, SNIFF_BYTES, type ArchiveFormat } from "./detect";
import { extractEntries, type ExtractedFile } from "./extract";
import { tarEntries } from "./tar-entries";
import { zipEntries } from "./zip-entries";
import type { Accepted } from "../../../lib/validate";
import type { archiveDeclarations } from "../../../definition/language/actions/archive";

export type DecompressConfig = Accepted<typeof archiveDeclarations.zipDecompress.configSchema>;

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
