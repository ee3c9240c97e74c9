// Reading the start of a stream without losing it, and driving a stream
// from an async generator: the two stream moves the archive actions share.

export function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) out.set(c, (at += c.byteLength) - c.byteLength);
  return out;
}

export interface Head {
  /** What was read: at least `bytes` unless the stream ended first. */
  chunks: Uint8Array[];
  size: number;
  /** The stream ended within the head. */
  ended: boolean;
  /** The whole stream again: the head's chunks, then the rest. */
  stream: ReadableStream<Uint8Array>;
}

/** Reads at least `bytes` (or to the end) and hands back a stream that replays them before the rest. */
export async function readHead(source: ReadableStream<Uint8Array>, bytes: number): Promise<Head> {
  const reader = source.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let ended = false;
  while (size < bytes) {
    const r = await reader.read();
    if (r.done) {
      ended = true;
      break;
    }
    chunks.push(r.value);
    size += r.value.byteLength;
  }
  const replay = [...chunks];
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(c) {
        if (replay.length) return c.enqueue(replay.shift()!);
        const r = ended ? { done: true as const } : await reader.read();
        if (r.done) c.close();
        else c.enqueue(r.value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  return { chunks, size, ended, stream };
}

/** The generator's chunks as a stream read on demand: nothing is made before the reader asks. */
export function streamOf(chunks: AsyncGenerator<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(c) {
        const r = await chunks.next();
        if (r.done) c.close();
        else c.enqueue(r.value);
      },
      cancel: async () => void (await chunks.return(undefined)),
    },
    { highWaterMark: 0 },
  );
}
