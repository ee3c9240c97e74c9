// Cuts a byte stream into fixed-size pieces in one reused buffer: encryption
// records (crypto-stream.ts) and R2 multipart parts (object-store.ts).

/**
 * A full piece is handed on only once more bytes arrive, so the stream's end
 * always finds its last piece still held: the one that is sealed as the last
 * record, or uploaded as the last (shorter) part.
 */
export class FixedChunks {
  private filled = 0;
  constructor(private readonly buffer: Uint8Array) {}

  /** `emit` gets the shared buffer; it must be done with it when its promise settles. */
  async push(chunk: Uint8Array, emit: (piece: Uint8Array) => Promise<void>): Promise<void> {
    for (let at = 0; at < chunk.byteLength; ) {
      if (this.filled === this.buffer.byteLength) {
        await emit(this.buffer);
        this.filled = 0;
      }
      const n = Math.min(this.buffer.byteLength - this.filled, chunk.byteLength - at);
      this.buffer.set(chunk.subarray(at, at + n), this.filled);
      this.filled += n;
      at += n;
    }
  }

  /** The bytes not handed on yet: the last piece once the stream has ended. */
  held(): Uint8Array {
    return this.buffer.subarray(0, this.filled);
  }
}
