// One page as the expressions of a render see it: the render context plus
// `page = { key, params, data, widgets, dataSources }`. A source is fetched
// only when an expression about to run reads it (./source-reads.ts), once
// per page, and no later than the render's deadline.
import type { Redactor } from "../../../lib/redact";
import { evaluateExpression, expressionsIn, isTruthy, resolveSmartValue, withFunctions, type Scope, type SecretWatch } from "../../../lib/smart-values";
import { DeadlineExceeded, type PageEvaluation, type PageInput, type RenderRun } from "../contracts";

export { DeadlineExceeded };
import { ALL_SOURCES, sourceReads } from "./source-reads";

/** What is shown in place of a value resolved from a secret. */
export const MASK = "***";

/**
 * Waits for source `name`'s `work` until the deadline: a value already there
 * wins, a pending one loses, naming the source. The render's one race for a
 * source: the sources themselves only refuse to start past the deadline.
 */
function beforeDeadline<T>(run: RenderRun, name: string, work: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlineExceeded(name)), Math.max(0, run.deadline - run.clock.now()));
    work.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (err: unknown) => (clearTimeout(timer), reject(err)),
    );
  });
}

/** The watch that masks what an expression computes from a secret; none without secrets. */
export function maskingWatch(secrets: Redactor | undefined): SecretWatch | undefined {
  if (!secrets?.size) return undefined;
  return {
    get size() {
      return secrets.size;
    },
    reveals: (text) => secrets.reveals(text),
    derived: (value) => void secrets.derived(value),
    mask: MASK,
  };
}

export class PageScope implements PageEvaluation {
  private readonly reads = new Map<string, Promise<unknown>>();
  private readonly sourceNames: string[];
  /** Each failure a source read ended with, and the source: a dropped widget's notification names it. */
  private readonly failedSources = new WeakMap<object, string>();

  constructor(
    readonly run: RenderRun,
    readonly input: PageInput,
  ) {
    const declared = input.document.dataSources;
    this.sourceNames = declared && typeof declared === "object" ? Object.keys(declared) : [];
  }

  /** The page's render context without its sources: what a source itself resolves against. */
  base(): Scope {
    const { key, params, data, widgets } = this.input;
    return { ...this.run.context, page: { key, params, data, widgets } };
  }

  private read(name: string): Promise<unknown> {
    let pending = this.reads.get(name);
    if (!pending) {
      pending = this.blaming(
        name,
        beforeDeadline(
          this.run,
          name,
          Promise.resolve().then(() => this.input.sources.read(name, this.base())),
        ),
      );
      // Read by whoever needs it; a failure no expression awaited must not surface as unhandled.
      pending.catch(() => undefined);
      this.reads.set(name, pending);
    }
    return pending;
  }

  /** `work`, its failure remembered as the failure of source `name` (the first source an identical fetch failed for keeps it). */
  private blaming<T>(name: string, work: Promise<T>): Promise<T> {
    return work.catch((err: unknown) => {
      if (typeof err === "object" && err !== null && !this.failedSources.has(err)) this.failedSources.set(err, name);
      throw err;
    });
  }

  /** The data source whose failure `err` is, when it is one. */
  sourceOf(err: unknown): string | undefined {
    return typeof err === "object" && err !== null ? this.failedSources.get(err) : undefined;
  }

  /** The scope for expressions `texts`, with the sources they read fetched; throws a source's failure or DeadlineExceeded. */
  async scopeFor(texts: readonly string[], extra: Scope = {}): Promise<Scope> {
    const wanted = sourceReads(texts.map((text) => withFunctions(text, this.run.functions)));
    const names = wanted.has(ALL_SOURCES) ? this.sourceNames : this.sourceNames.filter((name) => wanted.has(name));
    const values = await Promise.all(names.map((name) => this.read(name)));
    const dataSources = Object.fromEntries(names.map((name, i) => [name, values[i]]));
    const { key, params, data, widgets } = this.input;
    return { ...this.run.context, page: { key, params, data, widgets, dataSources }, ...extra };
  }

  /** A smart value for the answer: anything computed from a secret is MASK. */
  async resolve(value: unknown, extra: Scope = {}, expects: "string" | "json" = "json"): Promise<unknown> {
    const scope = await this.scopeFor(
      expressionsIn(value, "").map((found) => found.text),
      extra,
    );
    return resolveSmartValue(value, scope, { expects, budget: this.run.budget, functions: this.run.functions, secrets: maskingWatch(this.run.secrets) });
  }

  /** A bare JSONata predicate (`scanCard.if`, a gate's `$if`), JSONata-truthy; its value is never answered, so it sees secrets as they are. */
  async predicate(text: string): Promise<boolean> {
    const scope = await this.scopeFor([text]);
    return isTruthy(await evaluateExpression(withFunctions(text, this.run.functions), scope, this.run.budget));
  }

  /** `{ rows, total }` of the source a widget names, for `referenceData`. */
  reference(name: string, widgetId: string): Promise<{ rows: unknown[]; total: number }> {
    return this.blaming(
      name,
      beforeDeadline(
        this.run,
        name,
        Promise.resolve().then(() => this.input.sources.reference(name, this.base(), widgetId)),
      ),
    );
  }
}
