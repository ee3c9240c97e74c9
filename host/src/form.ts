// form: labelled fields whose values are the widget's state
// (`state.widgets.<formId>`, written as the user types) and the submit's
// payload. A `file` field uploads the picked file to its upload slot (the
// field's `uploadUrl`, which the spec points at a createTempFileUploadUrl
// step's output) with XMLHttpRequest, for its progress events; its value is
// then the slot's uploadId, the temp file id the service checks on submit.
import { h, isObj, safeUrl, str, uid } from "./dom";
import { button, choices, field, selectBox } from "./controls";
import { PlatformError } from "./errors";
import type { Standard } from "./components";
import type { Obj, UploadResult } from "./types";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The uploadId of a slot: the last segment of its uploadUrl's path (`/apps/upload/<integrationId>/<uploadId>`). */
function uploadIdOf(url: string, body: unknown): string | undefined {
  const last = new URL(url).pathname.split("/").pop() ?? "";
  if (UUID.test(last)) return last;
  return isObj(body) && typeof body.uploadId === "string" ? body.uploadId : undefined;
}

/** The words of a provider's error body (`{ errorMessage }` by default; a provider's own shape otherwise). */
function providerMessage(body: unknown, status: number): string {
  if (isObj(body)) for (const key of ["errorMessage", "error", "message"]) if (typeof body[key] === "string" && body[key]) return body[key] as string;
  return typeof body === "string" && body && body.length < 300 ? body : `The upload failed (${status})`;
}

export const form: Standard = (props, ctx, app) => {
  const formId = ctx.id ?? "";
  const values: Obj = { ...ctx.state };
  const set = (id: string, value: unknown) => {
    values[id] = value;
    ctx.setState({ [id]: value });
  };
  const el = h("form", { class: "pf-form", novalidate: true });
  const fields = (Array.isArray(props.fields) ? props.fields : []).filter(isObj);
  for (const f of fields) {
    const id = str(f.id);
    if (!id) continue;
    const label = str(f.label) || id;
    const required = f.required === true;
    const type = str(f.type) || "text";
    const value = values[id];
    if (type === "checkbox") {
      const cid = uid("check");
      const input = h("input", { type: "checkbox", id: cid, checked: value === true, "aria-required": required ? "true" : undefined });
      input.addEventListener("change", () => set(id, input.checked));
      el.appendChild(
        h(
          "div",
          { class: "pf-check" },
          input,
          h("label", { for: cid }, label, required ? h("span", { class: "pf-required", "aria-hidden": "true" }, " *") : null),
        ),
      );
      continue;
    }
    if (type === "select") {
      el.appendChild(
        field(
          label,
          selectBox(choices(f, undefined), value, str(f.placeholder), (v) => set(id, v)),
          required,
        ),
      );
      continue;
    }
    if (type === "file") {
      el.appendChild(fileField(f, id, label, required));
      continue;
    }
    const input = type === "textarea" ? h("textarea", { rows: 4 }) : h("input", { type: type === "number" || type === "date" ? type : "text" });
    if (f.placeholder !== undefined) input.setAttribute("placeholder", str(f.placeholder));
    input.value = value === null || value === undefined ? "" : str(value);
    input.addEventListener("input", () => set(id, type === "number" ? (input.value === "" ? null : Number(input.value)) : input.value));
    el.appendChild(field(label, input, required));
  }

  function fileField(f: Obj, id: string, label: string, required: boolean): HTMLElement {
    const key = `${ctx.key}|file|${id}`;
    const accept = Array.isArray(f.accept) ? f.accept.map(str).filter(Boolean).join(",") : "";
    const input = h("input", { type: "file", accept: accept || undefined });
    const progress = h("progress", { max: 100, value: 0, hidden: true, "aria-label": `Upload of ${label}` });
    const uploaded = app.ui.get(key);
    const status = h(
      "span",
      { class: "pf-upload-status", role: "status" },
      typeof uploaded === "string" ? `Uploaded ${uploaded}` : values[id] ? "A file is uploaded" : "",
    );
    const report = (result: UploadResult) => {
      app.opts.onUpload?.(result);
      app.host.dispatchEvent(new CustomEvent("platform-upload", { detail: result }));
    };
    const say = (text: string, ok: boolean) => {
      status.textContent = text;
      status.setAttribute("data-ok", String(ok));
    };
    input.addEventListener("change", () => {
      const file = input.files?.[0];
      if (!file) return;
      const url = safeUrl(f.uploadUrl);
      if (!url) {
        say(`No upload slot for ${label}`, false);
        app.report(new PlatformError(0, "UPLOAD_SLOT_MISSING", `The file field ${id} of form ${formId} has no uploadUrl to upload to`));
        return;
      }
      const max = typeof f.maxFileSize === "number" ? f.maxFileSize : undefined;
      if (max !== undefined && file.size > max) {
        say(`${file.name} is larger than ${Math.floor(max / 1024)} KiB`, false);
        return;
      }
      const xhr = new XMLHttpRequest();
      xhr.open("POST", url);
      progress.hidden = false;
      progress.value = 0;
      say(`Uploading ${file.name}…`, true);
      // Listening to upload progress makes the POST a CORS-preflighted request, and the upload route
      // answers no preflight yet (docs/hosts.md, "Uploads"): across origins, unless the host opts in,
      // the bar stays indeterminate until the answer.
      const crossOrigin = new URL(url).origin !== location.origin;
      if (app.opts.uploadProgress ?? !crossOrigin)
        xhr.upload.addEventListener("progress", (e) => {
          if (e.lengthComputable) progress.value = Math.round((e.loaded / e.total) * 100);
        });
      else progress.removeAttribute("value");
      xhr.addEventListener("load", () => {
        let body: unknown = xhr.responseText;
        try {
          body = JSON.parse(xhr.responseText);
        } catch {
          // the provider's body as text
        }
        if (xhr.status >= 200 && xhr.status < 300) {
          progress.value = 100;
          set(id, uploadIdOf(url, body) ?? null);
          app.ui.set(key, file.name);
          say(`Uploaded ${file.name}`, true);
        } else {
          progress.hidden = true;
          say(providerMessage(body, xhr.status), false);
        }
        report({ widgetId: formId, fieldId: id, status: xhr.status, body });
      });
      xhr.addEventListener("error", () => {
        progress.hidden = true;
        say(`The upload of ${file.name} failed: the service could not be reached`, false);
        report({ widgetId: formId, fieldId: id, status: 0, body: null });
      });
      const data = new FormData();
      data.append("file", file, file.name);
      xhr.send(data);
    });
    const wrap = field(label, input, required);
    wrap.append(progress, status);
    if (f.previewPage && formId)
      wrap.appendChild(
        h(
          "div",
          {},
          button(`Preview ${label}`, () => void app.act({ widgetId: formId, handler: "preview", payload: { fieldId: id }, surface: ctx.surface })),
        ),
      );
    return wrap;
  }

  const actions = h("div", { class: "pf-actions" }, h("button", { type: "submit", class: "pf-btn pf-btn-primary" }, str(props.submitLabel) || "Submit"));
  if (props.cancelLabel !== undefined)
    actions.appendChild(button(str(props.cancelLabel), () => void app.act({ widgetId: formId, handler: "cancel", surface: ctx.surface })));
  el.appendChild(actions);
  el.addEventListener("submit", (e) => {
    e.preventDefault();
    if (formId) void app.act({ widgetId: formId, handler: "submit", payload: { ...values }, surface: ctx.surface });
  });
  return el;
};
