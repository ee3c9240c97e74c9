/** A refused render (the service's error envelope), a network failure or a failure inside the SDK. */
export class PlatformError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "PlatformError";
  }
}
