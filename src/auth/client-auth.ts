// Who the client of POST /auth/token is. OAuth2 lets it authenticate in one of
// two places, never both (RFC 6749 2.3.1): an `Authorization: Basic` header,
// which every server must accept, or client_id and client_secret body fields.
import { ApiError } from "../lib/errors";
import { isCleanText } from "../lib/input-guard";
import { CLIENT_CHALLENGE, parseBasic, unauthorized } from "./credentials";

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** The body fields that can name the client; the route's schema has checked their types. */
interface BodyCredentials {
  client_id?: string;
  client_secret?: string;
}

/** Each half of OAuth2's Basic credentials is form-urlencoded before base64: `+` is a space, `%XX` a UTF-8 byte. */
function formDecode(part: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(part.replace(/\+/g, " "));
  } catch {
    return null;
  }
  // `%00` decodes to NUL, which no client id or secret contains and Postgres text cannot hold.
  return isCleanText(decoded) ? decoded : null;
}

/** The client named by an Authorization header sent to the token endpoint: Basic only, decoded by form rules. */
export function basicClient(header: string): ClientCredentials {
  const space = header.indexOf(" ");
  if (space <= 0 || header.slice(0, space).toLowerCase() !== "basic") {
    throw unauthorized(
      "POST /auth/token takes client credentials as Authorization: Basic base64(client_id:client_secret), or as client_id and client_secret in the body",
      CLIENT_CHALLENGE,
    );
  }
  const pair = parseBasic(header.slice(space + 1));
  const clientId = pair && formDecode(pair[0]);
  const clientSecret = pair && formDecode(pair[1]);
  if (!clientId || clientSecret === null) {
    throw unauthorized("Malformed Basic credentials: expected base64 of client_id:client_secret, each form-urlencoded", CLIENT_CHALLENGE);
  }
  return { clientId, clientSecret };
}

/** Refuses a body that authenticates the client a second time, or names another client than the header. */
export function checkBodyBesideBasic(client: ClientCredentials, body: BodyCredentials): void {
  if (body.client_secret !== undefined) {
    throw new ApiError(
      "BAD_REQUEST",
      "Client credentials were sent both as HTTP Basic and in the body: with Basic, leave client_id and client_secret out of the body",
    );
  }
  if (body.client_id !== undefined && body.client_id !== client.clientId) {
    throw new ApiError("BAD_REQUEST", "The body's client_id differs from the client id of the Basic credentials: leave client_id out of the body");
  }
}
