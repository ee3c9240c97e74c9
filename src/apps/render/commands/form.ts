// Forms (a widget whose component is `form`): the fields its config lists,
// which handler submits it, the `required` check a submit passes before any
// command runs, and the
// check that a `file` field holds the user's own live upload, and the
// built-in preview of a `file` field, which opens the field's previewPage
// as a modal showing the uploaded temp file.
import type { WidgetDocument } from "../../../definition/language/spec-schema";
import { ApiError } from "../../../lib/errors";
import type { Scope } from "../../../lib/smart-values";
import type { Notices, PageEvaluation } from "../contracts";
import type { CommandServices } from "./services";
import { isObject } from "../../../lib/is-object";

type Obj = Record<string, unknown>;

export interface FormField {
  id: string;
  type?: string;
  label?: string;
  required?: boolean;
  previewPage?: string;
}

/** The fields of a form's resolved `config.fields`; entries without an id are not fields. */
export async function formFields(scope: PageEvaluation, widget: WidgetDocument, extra: Scope): Promise<FormField[]> {
  const config = widget.config === undefined ? {} : await scope.resolve(widget.config, extra);
  const fields = isObject(config) && Array.isArray(config.fields) ? config.fields : [];
  return fields.filter((field): field is FormField => isObject(field) && typeof field.id === "string");
}

const empty = (value: unknown) => value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0);

/** The handler that submits a form. */
export const SUBMIT_HANDLER = "submit";

/**
 * Whether `handler` submits the form (runs the preflight, sets
 * `outputs.form`): only `submit` when the form declares it; every handler
 * of a form without one, which has no other way to send its values.
 */
export function submits(widget: WidgetDocument, handler: string): boolean {
  const handlers = isObject(widget.actionHandlers) ? widget.actionHandlers : {};
  return !Object.hasOwn(handlers, SUBMIT_HANDLER) || handler === SUBMIT_HANDLER;
}

/** What the user reads for a field: its label, else its id. */
export const fieldName = (field: FormField): string => (typeof field.label === "string" && field.label !== "" ? field.label : field.id);

/** The required fields without a value. */
export function missingRequired(fields: readonly FormField[], values: Obj): FormField[] {
  return fields.filter((field) => field.required === true && empty(Object.hasOwn(values, field.id) ? values[field.id] : undefined));
}

/**
 * The `file` fields whose value is no live upload of this user and
 * integration: a form's values come from the host, so an id of someone
 * else's file must not reach the commands.
 */
export async function foreignFiles(fields: readonly FormField[], values: Obj, services: CommandServices): Promise<FormField[]> {
  const checked = await Promise.all(
    fields
      .filter((field) => field.type === "file" && !empty(Object.hasOwn(values, field.id) ? values[field.id] : undefined))
      .map(async (field) => {
        const value = values[field.id];
        if (typeof value !== "string") return field;
        try {
          await services.uploadPreview(value);
          return undefined;
        } catch (err) {
          if (err instanceof ApiError) return field;
          throw err;
        }
      }),
  );
  return checked.filter((field): field is FormField => field !== undefined);
}

interface PreviewRequest {
  widgetId: string;
  fields: readonly FormField[];
  payload: unknown;
  values: Obj;
  services: CommandServices;
  notes: Notices;
}

/**
 * The modal a preview opens (`payload.fieldId` names a `file` field with a
 * previewPage), with `params = { fieldId, url, name, contentType }`; a
 * field with nothing uploaded, or an upload past its life, notifies instead.
 */
export async function previewUpload(request: PreviewRequest): Promise<{ page: string; params: Obj } | undefined> {
  const { widgetId, fields, payload, values, services, notes } = request;
  const fieldId = isObject(payload) ? payload.fieldId : undefined;
  const field = typeof fieldId === "string" ? fields.find((f) => f.id === fieldId) : undefined;
  if (!field || field.type !== "file" || typeof field.previewPage !== "string") {
    throw new ApiError("UNPROCESSABLE_ENTITY", `A preview names a file field of ${widgetId} with a previewPage in payload.fieldId`, {
      field: "action.payload.fieldId",
    });
  }
  const label = fieldName(field);
  const uploadId = values[field.id];
  if (typeof uploadId !== "string" || uploadId === "") {
    notes.notify({ id: `form-preview-empty-${widgetId}`, level: "WARNING", message: `Upload a file for ${label} first: there is nothing to preview.` });
    return undefined;
  }
  try {
    const upload = await services.uploadPreview(uploadId);
    return { page: field.previewPage, params: { fieldId: field.id, url: upload.url, name: upload.name, contentType: upload.contentType } };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const expired = err.code === "GONE";
    notes.notify(
      expired
        ? { id: `form-preview-expired-${widgetId}`, level: "WARNING", message: `The upload for ${label} has expired: upload the file again.` }
        : { id: `form-preview-empty-${widgetId}`, level: "WARNING", message: `Upload a file for ${label} first: there is nothing to preview.` },
      { code: typeof err.details.code === "string" ? err.details.code : err.code, message: err.message, status: err.status },
    );
    return undefined;
  }
}
