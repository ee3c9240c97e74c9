// An outbound failure as the error a workflow action fails with: always a
// 400 BAD_REQUEST (the target or its answer, not the platform, failed), told
// apart by `details.code`, with the guard's or client's reason beside it.
import { errorValue, type DetailCode, type ErrorValue } from "../errors";
import type { OutboundError, OutboundFailureKind } from "./types";

const DETAIL: Record<OutboundFailureKind, { code: DetailCode & `OUTBOUND_${string}`; message: string }> = {
  refused: { code: "OUTBOUND_TARGET_REFUSED", message: "The outbound target was refused" },
  unresolved: { code: "OUTBOUND_UNRESOLVED", message: "The outbound host name could not be resolved" },
  timeout: { code: "OUTBOUND_TIMEOUT", message: "The outbound request timed out" },
  connection: { code: "OUTBOUND_CONNECTION_FAILED", message: "The outbound connection failed" },
  redirects: { code: "OUTBOUND_TOO_MANY_REDIRECTS", message: "The outbound request could not follow its redirects" },
  "too-large": { code: "OUTBOUND_RESPONSE_TOO_LARGE", message: "The outbound response was too large" },
};

export function outboundRunError(e: OutboundError): ErrorValue {
  const { code, message } = DETAIL[e.kind];
  return errorValue({ code, reason: e.reason }, `${message}: ${e.reason}`);
}
