// <platform-app>: mount() as a custom element, for pages that would rather
// write markup. Attributes: `base-url`, `integration-id`, `endpoint`,
// `auth-header`, `body` (JSON: the host's body keys) and `context` (JSON).
// The credential, renderers and callbacks are properties (a token belongs in
// script, not in markup): `credential`, `components`, `onError`, `onAnswer`,
// `onUpload`. It renders when connected (after the properties set in the same
// task) and again when an attribute changes; `platform-error`,
// `platform-upload` events bubble from it too.
import { isObj } from "./dom";
import { mount, type MountHandle, type MountOptions } from "./mount";
import type { ComponentRenderer, Obj } from "./types";

const Base: typeof HTMLElement = typeof HTMLElement === "function" ? HTMLElement : (class {} as typeof HTMLElement);

function json(value: string | null): Obj | undefined {
  if (!value) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return isObj(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export class PlatformAppElement extends Base {
  static observedAttributes = ["base-url", "integration-id", "endpoint", "auth-header", "body", "context"];
  credential: MountOptions["credential"];
  components: Record<string, ComponentRenderer> | undefined;
  onError: MountOptions["onError"];
  onAnswer: MountOptions["onAnswer"];
  onUpload: MountOptions["onUpload"];
  private handle: MountHandle | undefined;
  private queued = false;

  /** The mounted app's handle (render, refresh, action, answer, state). */
  get app(): MountHandle | undefined {
    return this.handle;
  }

  connectedCallback() {
    this.schedule();
  }

  disconnectedCallback() {
    this.handle?.destroy();
    this.handle = undefined;
  }

  attributeChangedCallback() {
    if (this.isConnected) this.schedule();
  }

  private schedule() {
    if (this.queued) return;
    this.queued = true;
    queueMicrotask(() => {
      this.queued = false;
      if (!this.isConnected) return;
      this.handle?.destroy();
      this.handle = mount(this, {
        baseUrl: this.getAttribute("base-url") ?? undefined,
        integrationId: this.getAttribute("integration-id") ?? undefined,
        endpoint: this.getAttribute("endpoint") ?? undefined,
        authHeader: this.getAttribute("auth-header") ?? undefined,
        body: json(this.getAttribute("body")),
        context: json(this.getAttribute("context")),
        credential: this.credential,
        components: this.components,
        onError: this.onError,
        onAnswer: this.onAnswer,
        onUpload: this.onUpload,
      });
    });
  }
}

/** Defines <platform-app> (once; importing the module does it). */
export function defineElement(name = "platform-app") {
  if (typeof customElements !== "undefined" && !customElements.get(name)) customElements.define(name, class extends PlatformAppElement {});
}
