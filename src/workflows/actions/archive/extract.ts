// Turning an archive's entries into temp files, one per file entry, with
// every limit checked while the bytes flow: an entry whose inflated bytes
// pass its cap is refused at that byte, not after. The first refusal fails
// the whole extraction and removes the temp files made so far.
import { ApiError } from "../../../lib/errors";
import { saveTempFile, type FileRef } from "../file-ref";
import type { ConfinedServices } from "../../../access/confined-services";
import { concat, readHead } from "./bytes";
import { contentTypeOf } from "./content-type";
import type { ArchiveEntry } from "./entries";
import { baseName, entryPath, shownPath } from "./entry-path";
import { MAX_ENTRY_BYTES, MAX_TOTAL_BYTES, overLimit } from "./limits";
import { MAX_ARCHIVE_ENTRIES } from "../../../definition/language/actions/archive";
import { allOrNothing } from "../temp-output";

export type ExtractedFile = { path: string } & FileRef;

/**
 * An entry up to this size is read whole and stored with its length known
 * (one plain write); a bigger one streams on in 5 MiB parts.
 */
const WHOLE_ENTRY_BYTES = 1024 * 1024;

/**
 * Extracts the file entries (those under an `include` prefix, when given).
 * Refused, failing the whole extraction: more than MAX_ARCHIVE_ENTRIES
 * entries, an unsafe path, a link or device entry, a path twice, an entry
 * over MAX_ENTRY_BYTES or all entries together over MAX_TOTAL_BYTES
 * (entries left out by `include` count too: they are inflated all the same).
 */
export async function extractEntries(services: ConfinedServices, entries: AsyncIterable<ArchiveEntry>, include?: string[]): Promise<ExtractedFile[]> {
  return allOrNothing(services, async (made) => {
    const files: ExtractedFile[] = [];
    const paths = new Set<string>();
    const total = { bytes: 0 };
    let count = 0;
    for await (const entry of entries) {
      if (++count > MAX_ARCHIVE_ENTRIES)
        throw overLimit("MAX_ARCHIVE_ENTRIES", MAX_ARCHIVE_ENTRIES, `The archive has more than ${MAX_ARCHIVE_ENTRIES} entries`);
      const path = entryPath(entry.name);
      if (entry.kind === "link" || entry.kind === "other") {
        const what = entry.kind === "link" ? "a link" : "neither a file nor a directory";
        throw new ApiError("UNPROCESSABLE_ENTITY", `Archive entry "${shownPath(entry.name)}" is ${what}; only files and directories are extracted`, {
          entry: shownPath(entry.name),
          kind: entry.kind,
        });
      }
      const body = counted(entry.body, path, total);
      if (entry.kind === "directory" || !included(path, include)) {
        await drain(body);
        continue;
      }
      if (paths.has(path)) throw new ApiError("UNPROCESSABLE_ENTITY", `The archive holds "${path}" more than once`, { entry: path });
      paths.add(path);
      files.push({ path, ...made(await saveEntry(services, path, body)) });
    }
    return files;
  });
}

const included = (path: string, include?: string[]) =>
  !include || include.some((prefix) => path === prefix || path.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`));

/** The body, erroring the moment the entry or the archive passes its cap. */
function counted(body: ReadableStream<Uint8Array>, path: string, total: { bytes: number }): ReadableStream<Uint8Array> {
  let bytes = 0;
  return body.pipeThrough(
    new TransformStream({
      transform(chunk, c) {
        bytes += chunk.byteLength;
        total.bytes += chunk.byteLength;
        if (bytes > MAX_ENTRY_BYTES)
          throw overLimit("MAX_ENTRY_BYTES", MAX_ENTRY_BYTES, `Archive entry "${path}" inflates past ${MAX_ENTRY_BYTES} bytes`, { entry: path });
        if (total.bytes > MAX_TOTAL_BYTES)
          throw overLimit("MAX_TOTAL_BYTES", MAX_TOTAL_BYTES, `The archive's entries inflate past ${MAX_TOTAL_BYTES} bytes together`, { entry: path });
        c.enqueue(chunk);
      },
    }),
  );
}

async function drain(body: ReadableStream<Uint8Array>): Promise<void> {
  const reader = body.getReader();
  while (!(await reader.read()).done);
}

async function saveEntry(services: ConfinedServices, path: string, body: ReadableStream<Uint8Array>): Promise<FileRef> {
  const name = baseName(path);
  const contentType = contentTypeOf(name);
  const head = await readHead(body, WHOLE_ENTRY_BYTES + 1);
  if (head.ended) return saveTempFile(services, { name, contentType, body: concat(head.chunks) });
  return saveTempFile(services, { name, contentType, body: head.stream });
}
