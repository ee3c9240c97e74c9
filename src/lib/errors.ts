// One error type, rendered in one place into the envelope
// `{ error: { status, code, message, details } }` (docs/api.md, Errors).

/** Stable, machine-readable codes mapped to their HTTP status. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  /** An app upload slot past its expiry (apps/uploads). */
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  /** An app upload outside its slot's `accept` (apps/uploads); a body other than JSON where a route takes only JSON. */
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_FAILED: 422,
  UNPROCESSABLE_ENTITY: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One link or rule end over its cap, as a cardinality error reports it. */
export interface CardinalityViolation {
  rule?: string;
  side: string;
  entity_id: string;
  cap: number;
  live: number;
}

/** One problem of a refused document, as `details.issues[]` lists it (the codes: definition/checks/collector.ts). */
export interface DocumentIssue {
  path: string;
  code: string;
  message: string;
}

/**
 * Every `details.code` a response can carry, with the fields its details
 * must hold. Where several reasons share one status, this code is how a
 * client tells them apart, so each is declared once here and nowhere else.
 */
interface DetailFields {
  LINK_MALFORMED: {};
  LINK_SIGNATURE_INVALID: {};
  LINK_EXPIRED: { expired_at: string };
  ALREADY_CONFIRMED: {};
  CONCURRENT_MODIFICATION: { entity_id?: string };
  CARDINALITY_VIOLATION: { rule?: string; violations: readonly CardinalityViolation[] };
  LINK_EXISTS: { relationship_id: string };
  IDEMPOTENCY_IN_PROGRESS: {};
  IDEMPOTENCY_KEY_REUSED: {};
  CARDINALITY_VIOLATION_IGNORED: { rule: string; violations: readonly CardinalityViolation[] };
  MERGE_CARDINALITY_EXCEEDED: { rules: string[] };
  SIZE_MISMATCH: { declared_size: number; size: number };
  NOT_UPLOADED: { version: number };
  CHECKSUM_MISMATCH: { version: number; expected: string; actual: string };
  STATEMENT_TIMEOUT: { timeout_ms: number };
  /** An external user's email is held by a tenant user and the request did not ask to link it. */
  EMAIL_LINK_REFUSED: { email: string; user_id: string };
  EXTERNAL_USER_INACTIVE: { external_user_id: string };
  // Run-time outbound auth failures; the credential itself never appears.
  HTTP_AUTH_PROFILE_UNKNOWN: { profile: string; declared: string[] };
  /** Without `profile`, the request's own url, headers, query or body read the secrets (an app's `$http` source). */
  HTTP_AUTH_SECRET_MISSING: { profile?: string; missing_secrets: string[] };
  HTTP_AUTH_INVALID_CREDENTIAL: { field: string };
  HTTP_AUTH_CONFLICT: { conflict: "header" | "query"; name: string };
  /** `token_url` is origin and path only; `body_preview` at most 200 chars with secrets and tokens as `***`. */
  HTTP_AUTH_TOKEN_EXCHANGE_FAILED: { status: number; token_url: string; reason?: string; body_preview: string };
  HTTP_AUTH_TOKEN_CACHE_UNAVAILABLE: {};
  HTTP_AUTH_ARM_NOT_PERSISTED: { action_run_id: string; iteration: number; reason: string };
  /** An outbound URL or redirect hop the guard refused (a private address, a scheme, userinfo); nothing was sent. */
  OUTBOUND_TARGET_REFUSED: { reason: string };
  /** The outbound host name has no address, or the resolver failed. */
  OUTBOUND_UNRESOLVED: { reason: string };
  /** The outbound exchange, redirects included, did not end within its timeout. */
  OUTBOUND_TIMEOUT: { reason: string };
  /** The outbound connection failed or broke before a whole answer arrived. */
  OUTBOUND_CONNECTION_FAILED: { reason: string };
  /** A sixth redirect hop, or a redirect without a usable Location. */
  OUTBOUND_TOO_MANY_REDIRECTS: { reason: string };
  /** The outbound response body passed the size limit. */
  OUTBOUND_RESPONSE_TOO_LARGE: { reason: string };
  /** A run reached a reference step bound to no published job. */
  JOB_UNBOUND: { step_id: string; job_name: string };
  /** An app's `job` command reached a slot of the spec's `jobs` that no job_bindings entry fills. */
  JOB_SLOT_UNBOUND: { slot: string };
  /** A widget's resolved config fails its component's schema in the provider's catalogue: the widget is dropped. */
  COMPONENT_CONFIG_INVALID: { component: string; validation_errors: string[] };
  /** A definition naming a secret: references live in env values, never in the document. An app spec's refusal also lists its issues. */
  SECRET_REF_IN_DEFINITION: { errors: string[]; validation_errors: string[]; issues?: readonly DocumentIssue[] };
  /** An app spec refused at publish: every problem as an issue, and as the lines of every validation answer. */
  SPEC_STRUCTURE_INVALID: { issues: readonly DocumentIssue[]; errors: string[]; validation_errors: string[] };
}

export type DetailCode = keyof DetailFields;

/** A `details` object tagged by its code: the code decides which fields it needs. */
export type Detail = { [K in DetailCode]: { code: K } & DetailFields[K] }[DetailCode];

/** Details of an error without a detail code; `code` is reserved for `Detail`. */
export type PlainDetails = Record<string, unknown> & { code?: never };

/** The top-level code (and so the status) each detail code is answered with. */
export function errorCodeOf(code: DetailCode): ErrorCode {
  switch (code) {
    case "LINK_MALFORMED":
    case "LINK_SIGNATURE_INVALID":
    case "LINK_EXPIRED":
      return "UNAUTHORIZED";
    case "ALREADY_CONFIRMED":
    case "CONCURRENT_MODIFICATION":
    case "CARDINALITY_VIOLATION":
    case "LINK_EXISTS":
    case "IDEMPOTENCY_IN_PROGRESS":
    case "EMAIL_LINK_REFUSED":
    case "EXTERNAL_USER_INACTIVE":
      return "CONFLICT";
    case "IDEMPOTENCY_KEY_REUSED":
    case "CARDINALITY_VIOLATION_IGNORED":
    case "MERGE_CARDINALITY_EXCEEDED":
    case "SIZE_MISMATCH":
    case "NOT_UPLOADED":
    case "CHECKSUM_MISMATCH":
    case "JOB_UNBOUND":
    case "JOB_SLOT_UNBOUND":
    case "COMPONENT_CONFIG_INVALID":
      return "UNPROCESSABLE_ENTITY";
    case "SECRET_REF_IN_DEFINITION":
    case "SPEC_STRUCTURE_INVALID":
      return "VALIDATION_FAILED";
    case "STATEMENT_TIMEOUT":
      return "SERVICE_UNAVAILABLE";
    case "HTTP_AUTH_PROFILE_UNKNOWN":
    case "HTTP_AUTH_SECRET_MISSING":
    case "HTTP_AUTH_INVALID_CREDENTIAL":
    case "HTTP_AUTH_CONFLICT":
    case "HTTP_AUTH_TOKEN_EXCHANGE_FAILED":
    case "HTTP_AUTH_TOKEN_CACHE_UNAVAILABLE":
    case "OUTBOUND_TARGET_REFUSED":
    case "OUTBOUND_UNRESOLVED":
    case "OUTBOUND_TIMEOUT":
    case "OUTBOUND_CONNECTION_FAILED":
    case "OUTBOUND_TOO_MANY_REDIRECTS":
    case "OUTBOUND_RESPONSE_TOO_LARGE":
      return "BAD_REQUEST";
    // The request was never sent: our fault, not the caller's.
    case "HTTP_AUTH_ARM_NOT_PERSISTED":
      return "INTERNAL_ERROR";
    default:
      return unhandled(code);
  }
}

/**
 * Detail codes that one situation answers under another top-level code than
 * `errorCodeOf` gives: a render refusing an inactive external user is 403
 * (the user may not act), where re-posting the mapping is 409.
 */
const ALSO_ANSWERED_AS: { readonly [K in DetailCode]?: readonly ErrorCode[] } = { EXTERNAL_USER_INACTIVE: ["FORBIDDEN"] };

// A detail code added to DetailFields but not to the switch above makes `code` not `never` here.
function unhandled(code: never): never {
  throw new Error(`Unhandled detail code ${String(code)}`);
}

/**
 * An error as a value: the envelope's inner object, carried where nothing is
 * thrown to a handler (a run's steps, actions and end; an app command's
 * outcome) and kept as JSON. Built by `errorValue` or `ApiError.value` only,
 * so its code is a declared one and its status follows from the code.
 */
export interface ErrorValue {
  status: number;
  code: ErrorCode;
  message: string;
  details: Record<string, unknown>;
}

function codeAndDetails(codeOrDetail: ErrorCode | Detail, details: PlainDetails): { code: ErrorCode; details: Record<string, unknown> } {
  return typeof codeOrDetail === "string" ? { code: codeOrDetail, details } : { code: errorCodeOf(codeOrDetail.code), details: codeOrDetail };
}

/** An error value whose reason is one of the declared detail codes; its status follows from the code. */
export function errorValue(detail: Detail, message: string): ErrorValue;
export function errorValue(code: ErrorCode, message: string, details?: PlainDetails): ErrorValue;
export function errorValue(codeOrDetail: ErrorCode | Detail, message: string, details: PlainDetails = {}): ErrorValue {
  const resolved = codeAndDetails(codeOrDetail, details);
  return { status: ERROR_STATUS[resolved.code], code: resolved.code, message, details: resolved.details };
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown>;
  /** Headers the answer carries beside the envelope, such as a 401's `WWW-Authenticate` challenge. */
  readonly headers: Readonly<Record<string, string>>;
  /** An error whose reason is one of the declared detail codes; its status follows from the code. */
  constructor(detail: Detail, message: string);
  constructor(code: ErrorCode, message: string, details?: PlainDetails, headers?: Record<string, string>);
  constructor(codeOrDetail: ErrorCode | Detail, message: string, details: PlainDetails = {}, headers: Record<string, string> = {}) {
    super(message);
    this.headers = headers;
    const resolved = codeAndDetails(codeOrDetail, details);
    this.code = resolved.code;
    this.details = resolved.details;
    this.status = ERROR_STATUS[this.code];
  }

  /** The error as a value, for what records an error instead of answering it. */
  get value(): ErrorValue {
    return { status: this.status, code: this.code, message: this.message, details: this.details };
  }

  /** An error with a declared detail code under one of the other top-level codes ALSO_ANSWERED_AS allows it. */
  static as(code: ErrorCode, detail: Detail, message: string): ApiError {
    if (!ALSO_ANSWERED_AS[detail.code]?.includes(code)) throw new Error(`${detail.code} is not answered as ${code}`);
    // The detail's own `code` is what PlainDetails reserves; the check above is what makes this pairing a declared one.
    return new ApiError(code, message, detail as unknown as PlainDetails);
  }

  /** An error value thrown again, to be answered as the envelope. */
  static of(value: ErrorValue): ApiError {
    return new ApiError(value.code, value.message, value.details as PlainDetails);
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

export const notFound = (what: string, id?: string) => new ApiError("NOT_FOUND", id ? `${what} ${id} not found` : `${what} not found`);
