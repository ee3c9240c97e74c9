// Who is calling: resolved by authenticate.ts, read by every route.

export interface Principal {
  tenantId: string;
  userId: string;
  /** The API token the call was made with (directly as a PAT or through a JWT minted from it). */
  tokenId: string;
  /** `<resource>:<action>` grants from the token's roles; `*` matches anything in its part. */
  permissions: string[];
  /** The rate-limit and idempotency identity. */
  identity: string;
}

export function grants(permission: string, resource: string, action: string): boolean {
  const [r, a] = permission.split(":");
  return (r === "*" || r === resource) && (a === "*" || a === action);
}

export function hasPermission(permissions: string[], resource: string, action: string): boolean {
  return permissions.some((p) => grants(p, resource, action));
}

/** True when every grant in `wanted` is covered by `held` (used so a token cannot mint itself more power). */
export function coversAll(held: string[], wanted: string[]): boolean {
  return wanted.every((w) => {
    const [r, a] = w.split(":");
    return held.some((h) => {
      const [hr, ha] = h.split(":");
      return (hr === "*" || hr === r) && (ha === "*" || ha === a);
    });
  });
}
