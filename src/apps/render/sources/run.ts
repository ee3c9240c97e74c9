// What every producer of one page's sources shares: the source's name (for
// its notifications), the render's environment, the masking the answer will
// apply, and how a smart value of the source is resolved (the render's one
// budget, the spec's functions, secrets watched).
import { Redactor } from "../../../lib/redact";
import { resolveSmartValue, type DirectiveRegistry } from "../../../lib/smart-values";
import { DeadlineExceeded, type SourceEnvironment } from "../contracts";

export { DeadlineExceeded };

/** A source was still pending when the render's deadline passed. */
export type Obj = Record<string, unknown>;

/** What a producer fetched: the rows, and the total when the producer knows a better one than the rows' count. */
export interface Fetched {
  rows: unknown[];
  total?: number;
}

/** A source with its smart values resolved: what identifies it among the render's fetches, and the fetch itself. */
export interface Prepared {
  /** The resolved source as JSON: two sources with the same key are fetched once. */
  key: string;
  fetch(): Promise<Fetched>;
}

export class SourceRun {
  /** Where secrets and what is computed from them are kept, for the caller to mask the answer with. */
  readonly redactor: Redactor;

  constructor(
    readonly name: string,
    readonly env: SourceEnvironment,
  ) {
    this.redactor = env.secrets ?? new Redactor();
  }

  /** A smart value of the source against `scope`, drawing from the render's budget. */
  resolve(value: unknown, scope: Obj, directives?: DirectiveRegistry): Promise<unknown> {
    return resolveSmartValue(value, scope, {
      budget: this.env.budget,
      functions: this.env.functions,
      secrets: this.redactor,
      ...(directives && { directives }),
    });
  }
}
