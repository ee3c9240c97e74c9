// One error type, rendered in one place into SPEC.md section 7's envelope.

/** Stable, machine-readable codes mapped to their HTTP status. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  VALIDATION_FAILED: 422,
  UNPROCESSABLE_ENTITY: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export interface ErrorBody {
  error: { status: number; code: string; message: string; details: Record<string, unknown> };
}

export function errorBody(err: ApiError, requestId: string): ErrorBody {
  return {
    error: { status: err.status, code: err.code, message: err.message, details: { ...err.details, request_id: requestId } },
  };
}

export const notFound = (what: string, id?: string) =>
  new ApiError("NOT_FOUND", id ? `${what} ${id} not found` : `${what} not found`);
