// How a render's credential is refused: always 401 UNAUTHORIZED, whatever
// failed (missing, malformed, unknown, revoked, badly signed, expired, for
// another audience, its keys unreachable), so a host learns only that the
// credential did not prove who it speaks for.
import { ApiError } from "../../../lib/errors";

const CHALLENGE = 'Bearer realm="apps"';

export const unauthorized = (message: string) => new ApiError("UNAUTHORIZED", message, {}, { "WWW-Authenticate": CHALLENGE });
