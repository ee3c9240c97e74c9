// A host's upload walk-through as commands drive it: a step mints upload
// slots, the host posts the file to the slot's link, a form keeps the id,
// previews it and submits it; another user's upload is refused.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, systemQuery } from "../support/api";
import { hostFor, hostProvider, type Host } from "./host-fixture";

const spec = {
  dashboards: {
    main: {
      name: "Main",
      surfaces: { dashboard: "home" },
      pages: {
        home: {
          layout: [["picker", "form"]],
          widgets: {
            picker: {
              widgetComponent: "button",
              actionHandlers: {
                many: [
                  { kind: "createTempFileUploadUrl", stepId: "up", slots: { $jsonata: "payload.names.{ 'name': $ }" } },
                  { kind: "debug", value: "{{ $keys(outputs.up) }}" },
                ],
                slots: [
                  { kind: "createTempFileUploadUrl", stepId: "up", slots: [{ name: "doc", accept: [".pdf"], maxFileSize: 1024 }], ttl: 600 },
                  { kind: "setWidgetState", widgetId: "picker", state: { upload: "{{ outputs.up.doc }}" } },
                ],
              },
            },
            form: {
              widgetComponent: "form",
              config: { fields: [{ id: "doc", type: "file", label: "Contract", required: true, previewPage: "viewer", accept: [".pdf"] }] },
              actionHandlers: { submit: [{ kind: "notify", level: "INFO", stepId: "got", message: "file {{ outputs.form.doc }}" }] },
            },
          },
        },
      },
      modals: {
        viewer: {
          layout: [["shown"]],
          widgets: { shown: { widgetComponent: "file_viewer", config: { name: "{{ page.params.name }}", type: "{{ page.params.contentType }}" } } },
        },
      },
    },
  },
  providers: { host: { ...hostProvider.host, upload: "canvasFileUpload" } },
};

const BOUNDARY = "----bench";
const enc = new TextEncoder();

function multipart(bytes: string, filename: string): Uint8Array {
  return enc.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/pdf\r\n\r\n${bytes}\r\n--${BOUNDARY}--\r\n`,
  );
}

async function uploadSlot(host: Host, user = "u-1") {
  const res = await host.render({ user, action: { widgetId: "picker", handler: "slots" } });
  expect(res.status, res.text).toBe(200);
  return res.json.data.state.widgets.picker.upload as { uploadUrl: string; uploadId: string; expiresAt: string };
}

async function send(url: string, body: Uint8Array) {
  const res = await SELF.fetch(url, { method: "POST", body, headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` } });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("uploads driven by commands", () => {
  it("mints a slot, takes the file, previews it in the field's modal and submits its id", async () => {
    const host = await hostFor(spec);
    const slot = await uploadSlot(host);
    expect(slot.uploadUrl).toContain(`/apps/upload/${host.integrationId}/${slot.uploadId}?`);
    expect(Date.parse(slot.expiresAt) - Date.now()).toBeGreaterThan(500_000);
    expect(await send(slot.uploadUrl, multipart("%PDF-1.7 hello", "../../etc/contract.pdf"))).toEqual({ status: 200, json: { uploadId: slot.uploadId } });
    expect((await send(slot.uploadUrl, multipart("again", "b.pdf"))).status).toBe(409);

    const state = { widgets: { form: { doc: slot.uploadId } } };
    const preview = await host.render({ state, action: { widgetId: "form", handler: "preview", payload: { fieldId: "doc" } } });
    expect(preview.status, preview.text).toBe(200);
    const [modal] = preview.json.data.state.modals;
    expect(modal).toMatchObject({ page: "viewer", surface: "dashboard", params: { fieldId: "doc", name: "contract.pdf", contentType: "application/pdf" } });
    const download = await SELF.fetch(modal.params.url);
    expect(await download.text()).toBe("%PDF-1.7 hello");
    expect(preview.json.data.surfaces[0].modals[0].blocks[0].children[0].props).toEqual({ name: "contract.pdf", type: "application/pdf" });

    const sent = await host.render({ state, action: { widgetId: "form", handler: "submit" } });
    expect(sent.json.data.notifications).toEqual([{ id: "got", level: "INFO", message: `file ${slot.uploadId}` }]);
  });

  it("mints the slots a $jsonata directive computes, and fails the step on a duplicate computed name", async () => {
    const host = await hostFor(spec);
    const many = await host.render({ action: { widgetId: "picker", handler: "many", payload: { names: ["front", "back"] } } });
    expect(many.status, many.text).toBe(200);
    expect(many.json.data.debug).toEqual([["front", "back"]]);
    const twice = await host.render({ action: { widgetId: "picker", handler: "many", payload: { names: ["front", "front"] } } });
    expect(twice.json.data.notifications[0]).toMatchObject({ id: "step-error-up", level: "ERROR" });
    expect(twice.json.data.notifications[0].message).toContain("front");
    expect(twice.json.data.debug).toBeUndefined();
  });

  it("notifies instead of previewing when nothing was uploaded, and refuses a required file field left empty", async () => {
    const host = await hostFor(spec);
    const slot = await uploadSlot(host);
    const empty = await host.render({ action: { widgetId: "form", handler: "preview", payload: { fieldId: "doc" } } });
    expect(empty.json.data.notifications).toEqual([
      { id: "form-preview-empty-form", level: "WARNING", message: "Upload a file for Contract first: there is nothing to preview." },
    ]);
    const unsent = await host.render({
      state: { widgets: { form: { doc: slot.uploadId } } },
      action: { widgetId: "form", handler: "preview", payload: { fieldId: "doc" } },
    });
    expect(unsent.json.data.notifications[0].id).toBe("form-preview-empty-form");
    expect(unsent.json.data.state.modals).toEqual([]);
    const missing = await host.render({ action: { widgetId: "form", handler: "submit" } });
    expect(missing.json.data.notifications).toEqual([{ id: "form-required-form", level: "ERROR", message: "Fill in the required field Contract of form." }]);
    expect((await host.render({ action: { widgetId: "form", handler: "preview", payload: { fieldId: "nope" } } })).status).toBe(422);
  });

  it("says the upload has expired once its temp file's life is over", async () => {
    const host = await hostFor(spec);
    const slot = await uploadSlot(host);
    expect((await send(slot.uploadUrl, multipart("%PDF old", "old.pdf"))).status).toBe(200);
    // A day passing cannot be driven over HTTP: the file's end of life is moved instead.
    await systemQuery(`UPDATE temp_files SET expires_at = now() - interval '1 minute' WHERE id = $1`, [slot.uploadId]);
    const state = { widgets: { form: { doc: slot.uploadId } } };
    const preview = await host.render({ state, action: { widgetId: "form", handler: "preview", payload: { fieldId: "doc" } } });
    expect(preview.json.data.notifications).toEqual([
      { id: "form-preview-expired-form", level: "WARNING", message: "The upload for Contract has expired: upload the file again." },
    ]);
    expect(preview.json.data.state.modals).toEqual([]);
    const submit = await host.render({ state, action: { widgetId: "form", handler: "submit" } });
    expect(submit.json.data.notifications[0].id).toBe("form-file-invalid-form");
  });

  it("does not let one user preview or submit another user's upload", async () => {
    const host = await hostFor(spec);
    const theirs = await uploadSlot(host, "u-2");
    expect((await send(theirs.uploadUrl, multipart("%PDF private", "p.pdf"))).status).toBe(200);
    const state = { widgets: { form: { doc: theirs.uploadId } } };
    const preview = await host.render({ state, action: { widgetId: "form", handler: "preview", payload: { fieldId: "doc" } } });
    expect(preview.json.data.notifications[0].id).toBe("form-preview-empty-form");
    expect(JSON.stringify(preview.json.data)).not.toContain("/download");
    const submit = await host.render({ state, action: { widgetId: "form", handler: "submit" } });
    expect(submit.json.data.notifications).toEqual([
      { id: "form-file-invalid-form", level: "ERROR", message: "Upload the file for Contract of form again: no live upload of yours holds it." },
    ]);
  });

  it("fails the slot step with a notification in an author's preview", async () => {
    const host = await hostFor(spec);
    const res = await call("POST", `/apps/${host.specId}/preview`, { auth: host.t.auth, body: { action: { widgetId: "picker", handler: "slots" } } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.notifications[0]).toMatchObject({ id: "step-error-up", level: "ERROR" });
    expect(res.json.data.notifications[0].message).toContain("uploads need an integration");
  });
});
