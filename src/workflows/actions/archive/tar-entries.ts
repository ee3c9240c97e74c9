// Reading a tar or tar.gz as it streams in: gunzip by the runtime's own
// DecompressionStream (native, streaming), entries by modern-tar's decoder
// (Web Streams, no Node APIs). The tar stream itself is capped, so entries
// that are skipped (directories, PAX records) cannot make it inflate without end.
import { createTarDecoder, type ParsedTarEntry } from "modern-tar";
import type { ArchiveFormat } from "./detect";
import { guarded, unreadable, type ArchiveEntry } from "./entries";
import { MAX_TAR_STREAM_BYTES, overLimit } from "./limits";

export async function* tarEntries(source: ReadableStream<Uint8Array>, format: Exclude<ArchiveFormat, "zip">): AsyncGenerator<ArchiveEntry> {
  const tar = format === "tar.gz" ? guarded(format, gunzipped(source)) : source;
  const reader = tar
    .pipeThrough(capped(MAX_TAR_STREAM_BYTES))
    .pipeThrough(createTarDecoder({ strict: true }))
    .getReader();
  let ended = false;
  try {
    for (;;) {
      let r: ReadableStreamReadResult<ParsedTarEntry>;
      try {
        r = await reader.read();
      } catch (e) {
        throw unreadable(format, e);
      }
      if (r.done) return void (ended = true);
      const { header, body } = r.value;
      yield { name: header.name, kind: kindOf(header.type), body: guarded(format, body) };
    }
  } finally {
    if (!ended) await reader.cancel().catch(() => undefined);
  }
}

function kindOf(type: ParsedTarEntry["header"]["type"]): ArchiveEntry["kind"] {
  switch (type ?? "file") {
    case "file":
      return "file";
    case "directory":
      return "directory";
    case "symlink":
    case "link":
      return "link";
    default:
      return "other";
  }
}

/**
 * The inflated stream. The bytes are written into the inflater here rather
 * than piped, so that its failures (a gzip stream cut short fails its close)
 * are settled here and met by the reader on its readable side; the source is
 * cancelled when the inflater gives up.
 */
function gunzipped(source: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const gunzip = new DecompressionStream("gzip");
  const writer = gunzip.writable.getWriter();
  const reader = source.getReader();
  void (async () => {
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) await writer.write(r.value);
      await writer.close();
    } catch (e) {
      await reader.cancel(e).catch(() => undefined);
      await writer.abort(e).catch(() => undefined);
    }
  })();
  return gunzip.readable;
}

function capped(max: number): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  return new TransformStream({
    transform(chunk, c) {
      if ((seen += chunk.byteLength) > max) throw overLimit("MAX_TAR_STREAM_BYTES", max, `The tar stream passes ${max} bytes`);
      c.enqueue(chunk);
    },
  });
}
