/** An expression that does not compile: `position` is the character offset in its text where JSONata stopped. */
export class ExpressionSyntaxError extends Error {
  constructor(
    message: string,
    readonly position?: number,
  ) {
    super(message);
    this.name = "ExpressionSyntaxError";
  }
}

/** An evaluation that failed: a JSONata error, a bound exceeded, or a result that is not JSON. */
export class ExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExpressionError";
  }
}

/** JSONata throws plain objects (`{ code, message, position }`), and the engine itself can throw a RangeError. */
export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === "object" && err !== null && typeof (err as { message?: unknown }).message === "string") {
    return (err as { message: string }).message;
  }
  return String(err);
}
