// The notifications of one render: collected from every part (commands,
// data sources, the layout), one per id, and given the spec's wording
// (`messages.<id>`, or `messages.<details.code>` of the error behind one;
// the id wins) when they are answered. A widget dropped by a failure also
// says what failed (`details`), and is kept for the render's log line.
import { ApiError, ERROR_STATUS } from "../../../lib/errors";
import { ExpressionError, ExpressionSyntaxError, resolveSmartValue, type EvaluationBudget, type SecretWatch } from "../../../lib/smart-values";
import type { ErrorCause, Notices, Notification } from "../contracts";

/** A widget dropped by a failure: what its notification's `details` and the render's log line say. */
export interface WidgetFailure {
  widget: string;
  /** The data source whose failure dropped it, when one did. */
  source?: string;
  code: string;
  message: string;
}

/** What a message template reads: the error behind the notification and the widget it dropped, each absent when there is none. */
interface MessageScope {
  error?: ErrorCause;
  widgetId?: string;
}

/** `{ code, message, status }` of a thrown value: an ApiError's `details.code` when it has one. */
export function causeOf(err: unknown): ErrorCause {
  if (err instanceof ApiError) {
    const detail = typeof err.details.code === "string" ? err.details.code : err.code;
    return { code: detail, message: err.message, status: err.status };
  }
  if (err instanceof ExpressionError || err instanceof ExpressionSyntaxError) {
    return { code: "UNPROCESSABLE_ENTITY", message: err.message, status: ERROR_STATUS.UNPROCESSABLE_ENTITY };
  }
  // An unexpected failure's own words may describe internals: the template gets none.
  return { code: "INTERNAL_ERROR", message: "internal error", status: ERROR_STATUS.INTERNAL_ERROR };
}

interface Entry {
  notification: Notification;
  scope: MessageScope;
  failure?: WidgetFailure;
}

export interface AnswerOptions {
  budget: EvaluationBudget;
  functions: Readonly<Record<string, string>>;
  secrets?: SecretWatch;
  /** An author's preview: a dropped widget's details carry its cause's own message, which a host's user never reads. */
  causeMessages?: boolean;
}

export class RenderNotifications implements Notices {
  private readonly entries: Entry[] = [];
  private readonly ids = new Set<string>();

  /** Adds a notification; a later one with an id already given is dropped (a widget shown by two placements fails once). */
  notify(notification: Notification, cause?: ErrorCause, widgetId?: string): void {
    this.add({ notification: { ...notification }, scope: { ...(cause && { error: cause }), ...(widgetId !== undefined && { widgetId }) } });
  }

  /** Adds the notification of a widget `cause` dropped (`source`: the data source that failed, when one did). */
  widgetFailed(notification: Notification, cause: ErrorCause, widgetId: string, source: string | undefined): void {
    const failure: WidgetFailure = { widget: widgetId, ...(source !== undefined && { source }), code: cause.code, message: cause.message };
    this.add({ notification: { ...notification }, scope: { error: cause, widgetId }, failure });
  }

  private add(entry: Entry): void {
    if (this.ids.has(entry.notification.id)) return;
    this.ids.add(entry.notification.id);
    this.entries.push(entry);
  }

  /** Every widget a failure dropped, once each. */
  failures(): WidgetFailure[] {
    return this.entries.flatMap((entry) => (entry.failure ? [entry.failure] : []));
  }

  /**
   * The notifications in the order given, each message replaced by the
   * spec's template for its id or its error's code; a template that fails
   * keeps the message it would replace.
   */
  async answer(messages: Readonly<Record<string, unknown>>, options: AnswerOptions): Promise<Notification[]> {
    const out: Notification[] = [];
    for (const { notification, scope, failure } of this.entries) {
      const answered = failure ? { ...notification, details: detailsOf(failure, options.causeMessages === true) } : notification;
      const template = templateFor(messages, notification.id, scope.error?.code);
      if (template === undefined) {
        out.push(answered);
        continue;
      }
      try {
        const text = await resolveSmartValue(
          template,
          { ...scope },
          { expects: "string", budget: options.budget, functions: options.functions, secrets: options.secrets },
        );
        out.push({ ...answered, message: typeof text === "string" ? text : JSON.stringify(text) });
      } catch {
        out.push(answered);
      }
    }
    return out;
  }
}

function detailsOf(failure: WidgetFailure, withMessage: boolean): NonNullable<Notification["details"]> {
  return { code: failure.code, ...(failure.source !== undefined && { source: failure.source }), ...(withMessage && { message: failure.message }) };
}

function templateFor(messages: Readonly<Record<string, unknown>>, id: string, code: string | undefined): unknown {
  if (Object.hasOwn(messages, id)) return messages[id];
  if (code !== undefined && Object.hasOwn(messages, code)) return messages[code];
  return undefined;
}
