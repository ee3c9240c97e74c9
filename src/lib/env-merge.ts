// Values stored per activation (a workflow's env; an app's config scopes) are
// a patch over the definition's defaults. A write merges (a key set sets,
// null unsets, unmentioned keys keep their value); a default of null is a
// sentinel the activating tenant must supply.
export type Env = Record<string, unknown>;

/** The stored values after a write: `patch` merged over `stored`, null removing a key. */
export function mergeEnv(stored: Env, patch: Env | undefined): Env {
  if (!patch) return stored;
  const merged: Env = { ...stored };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    // Defined, not assigned: a key named `__proto__` stays a plain key.
    else Object.defineProperty(merged, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return merged;
}

/** What runs see: the definition's defaults with the stored values over them. */
export function effectiveEnv(defaults: Env | undefined, stored: Env): Env {
  return { ...(defaults ?? {}), ...stored };
}

/** Sentinels (null defaults) that no stored value sets yet, sorted. */
export function missingEnvVars(defaults: Env | undefined, stored: Env): string[] {
  return Object.entries(defaults ?? {})
    .filter(([key, value]) => value === null && !Object.hasOwn(stored, key))
    .map(([key]) => key)
    .sort();
}
