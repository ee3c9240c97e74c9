// Secrets read by an evaluation. A value computed from a secret is as secret
// as the secret itself (`$uppercase(config.env.TOKEN)` is the token in other
// letters), and no text search for the secret finds it. So an evaluation
// given a SecretWatch notes whether any expression read a string carrying a
// secret value, and the value that expression computed becomes secret too:
// what reads it later is tainted in turn.

/** What an evaluation is told about secrets (lib/redact.ts's Redactor is one). */
export interface SecretWatch {
  /** How many values are secret: with none, evaluations skip the watch. */
  readonly size: number;
  /** Whether the text carries a secret value. */
  reveals(text: string): boolean;
  /** An expression that read a secret computed `value`: its text is secret from now on. */
  derived(value: unknown): void;
  /**
   * When set, what such an expression yields instead of its value: a number
   * or a short string computed from a secret (its length, its first letter)
   * is no text a later search could find, so a caller answering values to
   * the outside (an app render) replaces the value itself.
   */
  readonly mask?: string;
}

/**
 * Whether a node's result read a secret: a string carrying one, or an array
 * holding such a string (what a path over an array selects). Objects are not
 * searched: `config.env` holds every env value, and reading one of them must
 * not taint an expression that read another.
 */
export function readsSecret(watch: SecretWatch, result: unknown): boolean {
  if (typeof result === "string") return watch.reveals(result);
  return Array.isArray(result) && result.some((v) => typeof v === "string" && watch.reveals(v));
}
