// COPY ... FROM STDIN over a client of the Neon driver (the pg client it
// bundles), without pg-copy-streams: the client hands the wire protocol to
// any query object with a `submit` method, so this one sends the statement,
// streams the data when the server asks for it, and settles on completion.

class CopyFrom {
  constructor(text, chunks) {
    this.text = text;
    this.chunks = chunks;
    this.rowCount = 0;
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  submit(connection) {
    connection.query(this.text);
  }

  handleCopyInResponse(connection) {
    for (const chunk of this.chunks) connection.sendCopyFromChunk(chunk);
    connection.endCopyFrom();
  }

  handleCommandComplete(msg) {
    // The tag is "COPY <rows>".
    this.rowCount = Number(msg.text.split(" ").pop());
  }

  handleReadyForQuery() {
    this.resolve(this.rowCount);
  }

  handleError(err) {
    this.reject(err);
  }
}

/**
 * Runs `text` (a `COPY ... FROM STDIN` statement) on `client`, sending
 * `chunks` (Buffers of COPY data) as its input; resolves to the rows copied.
 */
export function copyFrom(client, text, chunks) {
  const copy = new CopyFrom(text, chunks);
  client.query(copy);
  return copy.done;
}

class CopyTo {
  constructor(text) {
    this.text = text;
    this.bytes = 0;
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  submit(connection) {
    connection.query(this.text);
  }

  handleCopyData(msg) {
    this.bytes += msg.chunk.length;
  }

  handleCommandComplete() {}

  handleReadyForQuery() {
    this.resolve(this.bytes);
  }

  handleError(err) {
    this.reject(err);
  }
}

/** Runs `text` (a `COPY ... TO STDOUT` statement) on `client`, reading and counting its output; resolves to the bytes received. */
export function copyTo(client, text) {
  const copy = new CopyTo(text);
  client.query(copy);
  return copy.done;
}
