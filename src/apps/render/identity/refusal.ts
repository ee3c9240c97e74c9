// How a render's credential is refused: always 401 UNAUTHORIZED with the
// same challenge. Until the credential is verified the refusal is one and
// the same answer whatever failed (missing, malformed, an unknown
// integration, a revoked token, a bad signature, an unknown key, keys
// unreachable or over their fetch budget, a provider the spec no longer
// declares), so a caller probing ids or tokens learns neither whether an
// integration exists nor its provider type (docs/apps.md, "What an
// unverified caller learns"). Once an identity token's signature is
// verified, its holder has a token the provider issued, and the refusal
// names the check that failed so the host can fix it.
import { ApiError } from "../../../lib/errors";

const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="apps"' };

/**
 * The one refusal of a credential not (yet) verified. `reason` says what
 * failed for the service's own log (verifyRenderCredential writes it); the
 * answer never carries it.
 */
export class CredentialRefused extends ApiError {
  constructor(readonly reason: string) {
    super("UNAUTHORIZED", "The render credential is not valid for this integration", {}, CHALLENGE);
  }
}

export const refused = (reason: string) => new CredentialRefused(reason);

/** A check of a signature-verified identity token (`details.check`). */
export type FailedCheck = "expired" | "not yet valid" | "issued at" | "audience" | "issuer" | `required claim ${string}`;

/** The refusal of an identity token whose signature checked out but whose claims did not. */
export const failedCheck = (check: FailedCheck) => new ApiError("UNAUTHORIZED", `The identity token failed the check: ${check}`, { check }, CHALLENGE);

/** A refusal after the credential was verified, such as a request naming no user. */
export const unauthorized = (message: string) => new ApiError("UNAUTHORIZED", message, {}, CHALLENGE);
