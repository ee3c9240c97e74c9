// The notifications of one render: collected from every part (commands,
// data sources, the layout), one per id, and given the spec's wording
// (`messages.<id>`, or `messages.<details.code>` of the error behind one;
// the id wins) when they are answered.
import { ApiError, ERROR_STATUS } from "../../../lib/errors";
import { ExpressionError, ExpressionSyntaxError, resolveSmartValue, type EvaluationBudget, type SecretWatch } from "../../../lib/smart-values";
import type { Notification } from "../contracts";

/** The error behind a notification, as a `messages` template sees it. */
export interface ErrorCause {
  code: string;
  message: string;
  status: number;
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

export class RenderNotifications {
  private readonly entries: { notification: Notification; scope: MessageScope }[] = [];
  private readonly ids = new Set<string>();

  /** Adds a notification; a later one with an id already given is dropped (a widget shown by two placements fails once). */
  notify(notification: Notification, cause?: ErrorCause, widgetId?: string): void {
    if (this.ids.has(notification.id)) return;
    this.ids.add(notification.id);
    this.entries.push({ notification: { ...notification }, scope: { ...(cause && { error: cause }), ...(widgetId !== undefined && { widgetId }) } });
  }

  /**
   * The notifications in the order given, each message replaced by the
   * spec's template for its id or its error's code; a template that fails
   * keeps the message it would replace.
   */
  async answer(messages: Readonly<Record<string, unknown>>, options: { budget: EvaluationBudget; functions: Readonly<Record<string, string>>; secrets?: SecretWatch }): Promise<Notification[]> {
    const out: Notification[] = [];
    for (const { notification, scope } of this.entries) {
      const template = templateFor(messages, notification.id, scope.error?.code);
      if (template === undefined) {
        out.push(notification);
        continue;
      }
      try {
        const text = await resolveSmartValue(template, { ...scope }, { expects: "string", budget: options.budget, functions: options.functions, secrets: options.secrets });
        out.push({ ...notification, message: typeof text === "string" ? text : JSON.stringify(text) });
      } catch {
        out.push(notification);
      }
    }
    return out;
  }
}

function templateFor(messages: Readonly<Record<string, unknown>>, id: string, code: string | undefined): unknown {
  if (Object.hasOwn(messages, id)) return messages[id];
  if (code !== undefined && Object.hasOwn(messages, code)) return messages[code];
  return undefined;
}
