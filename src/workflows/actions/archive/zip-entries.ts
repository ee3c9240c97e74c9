// Reading a zip as it streams in (fflate's Unzip): entries come from their
// local headers in archive order, each inflated only as its body is read.
// fflate pushes; this module pulls: the input advances one small slice at a
// time, only when a body (or the search for the next entry) needs it, so a
// slice inflates to at most ~1000x its size (DEFLATE's ceiling) before the
// reader's counters see it.
import { Unzip, UnzipInflate, type UnzipFile } from "fflate";
import type { ApiError } from "../../../lib/errors";
import { unreadable, type ArchiveEntry } from "./entries";

/** Compressed bytes pushed at once: at most ~4 MiB inflated per push. */
const SLICE_BYTES = 4096;

export async function* zipEntries(source: ReadableStream<Uint8Array>): AsyncGenerator<ArchiveEntry> {
  const input = source.getReader();
  const unzip = new Unzip();
  unzip.register(UnzipInflate);
  const found: ArchiveEntry[] = [];
  let rest: Uint8Array = new Uint8Array(0);
  let ended = false;

  /** Pushes the next slice of input; false once the input has ended. */
  async function feed(): Promise<boolean> {
    if (ended) return false;
    if (!rest.length) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await input.read();
      } catch (e) {
        throw unreadable("zip", e);
      }
      if (r.done) {
        ended = true;
        push(new Uint8Array(0), true);
        return false;
      }
      rest = r.value;
    }
    const slice = rest.subarray(0, SLICE_BYTES);
    rest = rest.subarray(SLICE_BYTES);
    push(slice, false);
    return true;
  }

  function push(chunk: Uint8Array, final: boolean) {
    try {
      unzip.push(chunk, final);
    } catch (e) {
      throw unreadable("zip", e);
    }
  }

  unzip.onfile = (file) => found.push(entryOf(file, feed));

  try {
    for (;;) {
      while (!found.length) if (!(await feed())) return;
      yield found.shift()!;
    }
  } finally {
    if (!ended) await input.cancel().catch(() => undefined);
  }
}

/** One entry: its body pulls input until the entry's inflater delivers. */
function entryOf(file: UnzipFile, feed: () => Promise<boolean>): ArchiveEntry {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  let delivered = false;
  const fail = (e: ApiError) => {
    if (open) controller.error(e);
    open = false;
  };
  file.ondata = (err, data, final) => {
    if (!open) return;
    if (err) return fail(unreadable("zip", err));
    if (data.length) controller.enqueue(data), (delivered = true);
    if (final) controller.close(), (open = false);
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start: (c) => void (controller = c),
      async pull() {
        delivered = false;
        while (open && !delivered) {
          if (!(await feed()) && open) fail(unreadable("zip", new Error(`entry ${file.name} is cut short`)));
        }
      },
      cancel: () => void ((open = false), file.terminate()),
    },
    { highWaterMark: 0 },
  );
  // Started at once: an entry not started would have fflate hold its compressed bytes and inflate them in one go later.
  if (file.compression !== 0 && file.compression !== 8)
    fail(unreadable("zip", new Error(`entry ${file.name} uses compression method ${file.compression}; only stored and deflate are read`)));
  else file.start();
  const name = file.name;
  return { name, kind: name.endsWith("/") ? "directory" : "file", body };
}
