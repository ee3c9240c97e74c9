// mount(): draws render answers into an element and keeps the conversation
// going: each action, state change and page turn posts
// `{ ...body, state, context, action? }` to POST /apps/run/{integrationId}
// and draws the answer (docs/hosts.md).
import { h, isObj, str, uid, setLength, safeUrl } from "./dom";
import { PlatformError } from "./errors";
import { STANDARD, placeholder } from "./components";
import { adoptStyles } from "./styles";
import type { Action, Answer, ComponentRenderer, Modal, Notification, Obj, RenderContext, RenderState, Surface, UploadResult } from "./types";

export interface MountOptions {
  /** The service's origin (`https://platform.example.com`); by default the origin that served this module. */
  baseUrl?: string;
  /** The integration whose app to render: posts go to `<baseUrl>/apps/run/<integrationId>`. */
  integrationId?: string;
  /** The whole render URL instead of baseUrl and integrationId (the author preview posts to `/apps/<specId>/preview`). */
  endpoint?: string;
  /** The render credential: an identity token (oidc, exchange) or, from a trusted page only, an app token. A function is asked before each post (a token that refreshes). */
  credential?: string | (() => string | undefined | Promise<string | undefined>);
  /** The provider's `auth.header`, when it sends the credential in a header of its own; default `Authorization: Bearer`. */
  authHeader?: string;
  /** The host's own body keys (what the provider's identity extractors read), sent with every post. */
  body?: Obj | (() => Obj | Promise<Obj>);
  /** The request context the app's smart values see as `context`. */
  context?: Obj;
  /** A state to start from (a previous answer's); a fresh render without it. */
  state?: RenderState | null;
  /** The host's own renderers, by component name; they win over the standard ones. */
  components?: Record<string, ComponentRenderer>;
  /** A refused render (with its status, code and details), a network failure, an upload without a slot, a renderer that threw. */
  onError?: (error: PlatformError) => void;
  /** Each answer drawn. */
  onAnswer?: (answer: Answer) => void;
  /** Each upload's outcome: the provider's upload body or error body. */
  onUpload?: (result: UploadResult) => void;
  /** Follow an upload's progress (XMLHttpRequest upload events). Default: when the upload URL is on the page's origin; across origins the browser then sends a CORS preflight, which the upload route does not answer yet. */
  uploadProgress?: boolean;
  /** fetch's `credentials` for the render posts (default `same-origin`). */
  fetchCredentials?: RequestCredentials;
  /** Render at once (default true); false waits for `handle.render()`. */
  autoRender?: boolean;
}

export interface MountHandle {
  /** A fresh render (no state), with new body keys when given. */
  render(body?: Obj): Promise<void>;
  /** Posts the current state again (or, when given, this state in its place) and draws the answer. */
  refresh(state?: RenderState | null): Promise<void>;
  /** Runs a widget's handler: posts `action` with the state. */
  action(action: Action): Promise<void>;
  /** The answer on show. */
  readonly answer: Answer | undefined;
  /** The state the next post sends. */
  readonly state: RenderState | null;
  /** Stops drawing and empties the element. */
  destroy(): void;
}

const FOCUSABLE = 'a[href],button:not([disabled]),input:not([disabled]),select:not([disabled]),textarea:not([disabled]),iframe,[tabindex]:not([tabindex="-1"])';
const MODULE_ORIGIN = (() => {
  try {
    return new URL(import.meta.url).origin;
  } catch {
    return "";
  }
})();

export class App {
  readonly root: HTMLElement;
  answer: Answer | undefined;
  state: RenderState | null;
  private seq = 0;
  private destroyed = false;
  /** Handlers a widget turned out not to have (`widgetId\0handler`), so a change posts only the state. */
  private missing = new Set<string>();
  /** What the SDK remembers across draws: tabs shown, sections folded, file names uploaded. */
  readonly ui = new Map<string, unknown>();
  private dismissed = new Set<string>();
  private error: PlatformError | undefined;

  constructor(
    readonly host: HTMLElement,
    readonly opts: MountOptions,
  ) {
    adoptStyles(host.ownerDocument);
    this.state = opts.state ?? null;
    this.root = h("div", { class: "pf-root" });
    host.replaceChildren(this.root);
  }

  private endpoint(): string {
    if (this.opts.endpoint) return this.opts.endpoint;
    if (!this.opts.integrationId) throw new PlatformError(0, "CONFIGURATION", "mount() needs integrationId (or endpoint)");
    return `${(this.opts.baseUrl || MODULE_ORIGIN).replace(/\/+$/, "")}/apps/run/${encodeURIComponent(this.opts.integrationId)}`;
  }

  /** Posts the state (and an action), draws the answer; throws the refusal. */
  async post(action?: Action): Promise<void> {
    const seq = ++this.seq;
    this.root.setAttribute("aria-busy", "true");
    try {
      const { opts } = this;
      const own = typeof opts.body === "function" ? await opts.body() : opts.body;
      const body: Obj = { ...(own ?? {}), state: this.state };
      if (opts.context) body.context = opts.context;
      if (action) body.action = action;
      const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json" };
      const credential = typeof opts.credential === "function" ? await opts.credential() : opts.credential;
      if (credential) {
        if (opts.authHeader) headers[opts.authHeader] = credential;
        else headers.Authorization = `Bearer ${credential}`;
      }
      let res: Response;
      try {
        res = await fetch(this.endpoint(), { method: "POST", headers, body: JSON.stringify(body), credentials: opts.fetchCredentials ?? "same-origin" });
      } catch (e) {
        throw e instanceof PlatformError
          ? e
          : new PlatformError(
              0,
              "NETWORK_ERROR",
              `The render could not be reached (the network failed, or the browser withheld an answer that carried no CORS grant for this origin): ${(e as Error).message}`,
            );
      }
      let json: unknown;
      try {
        json = await res.json();
      } catch {
        json = undefined;
      }
      if (!res.ok) {
        const err = isObj(json) && isObj(json.error) ? json.error : {};
        throw new PlatformError(
          res.status,
          str(err.code) || `HTTP_${res.status}`,
          str(err.message) || `The render answered ${res.status}`,
          isObj(err.details) ? err.details : {},
        );
      }
      const data = isObj(json) && isObj(json.data) ? json.data : undefined;
      if (!data) throw new PlatformError(res.status, "BAD_ANSWER", "The render answered no data");
      if (seq !== this.seq || this.destroyed) return;
      this.error = undefined;
      this.answer = {
        surfaces: Array.isArray(data.surfaces) ? (data.surfaces as Surface[]) : [],
        state: isObj(data.state) ? (data.state as RenderState) : {},
        referenceData: isObj(data.referenceData) ? (data.referenceData as Answer["referenceData"]) : {},
        notifications: Array.isArray(data.notifications) ? (data.notifications as Notification[]) : [],
        ...(Array.isArray(data.debug) ? { debug: data.debug } : {}),
      };
      this.state = this.answer.state;
      this.dismissed.clear();
      this.draw();
      opts.onAnswer?.(this.answer);
    } finally {
      if (seq === this.seq) this.root.removeAttribute("aria-busy");
    }
  }

  /** Reports a failure to the host (onError and a `platform-error` event), or shows it when the host listens to neither. */
  fail(e: unknown) {
    const err = e instanceof PlatformError ? e : new PlatformError(0, "HOST_SDK_ERROR", e instanceof Error ? e.message : str(e));
    const listened = !this.host.dispatchEvent(new CustomEvent("platform-error", { detail: err, cancelable: true }));
    if (this.opts.onError) this.opts.onError(err);
    else if (!listened) {
      this.error = err;
      this.draw();
    }
  }

  async refresh(): Promise<void> {
    try {
      await this.post();
    } catch (e) {
      this.fail(e);
    }
  }

  /** Runs a handler. `soft`: a handler the widget may not declare (a change, a row's open): without it, the state is posted alone. */
  async act(action: Action, soft = false): Promise<void> {
    const key = `${action.widgetId}\0${action.handler}`;
    if (soft && this.missing.has(key)) return this.refresh();
    try {
      await this.post(action);
    } catch (e) {
      if (soft && e instanceof PlatformError && e.status === 422 && e.details.field === "action.handler") {
        this.missing.add(key);
        return this.refresh();
      }
      this.fail(e);
    }
  }

  lacks(widgetId: string, handler: string) {
    return this.missing.has(`${widgetId}\0${handler}`);
  }

  widgetState(id: string): Obj {
    const widgets = isObj(this.state?.widgets) ? this.state!.widgets! : {};
    return isObj(widgets[id]) ? widgets[id] : {};
  }

  setWidgetState(id: string, patch: Obj) {
    const state: RenderState = isObj(this.state) ? this.state : {};
    const widgets = isObj(state.widgets) ? state.widgets : {};
    state.widgets = { ...widgets, [id]: { ...this.widgetState(id), ...patch } };
    this.state = state;
  }

  report(e: unknown) {
    this.fail(e);
  }

  destroy() {
    this.destroyed = true;
    this.seq++;
    this.host.replaceChildren();
  }

  // ---- drawing ----

  draw() {
    if (this.destroyed) return;
    const focus = this.focusPath();
    for (const dialog of Array.from(this.root.querySelectorAll("dialog"))) if (dialog.open) dialog.close();
    const parts: Element[] = [];
    if (this.error)
      parts.push(
        h(
          "div",
          { class: "pf-alert pf-alert-error", role: "alert" },
          h("strong", {}, "The app could not be shown"),
          `${this.error.message} (${this.error.status || this.error.code})`,
        ),
      );
    parts.push(this.drawNotifications());
    const dialogs: HTMLDialogElement[] = [];
    for (const surface of this.answer?.surfaces ?? []) {
      if (!isObj(surface)) continue;
      parts.push(this.drawSurface(surface));
      const modals = Array.isArray(surface.modals) ? surface.modals : [];
      const top = modals[modals.length - 1];
      if (isObj(top)) dialogs.push(this.drawModal(top, surface));
    }
    this.root.replaceChildren(...parts, ...dialogs);
    for (const dialog of dialogs) {
      if (this.root.isConnected && typeof dialog.showModal === "function") dialog.showModal();
      else dialog.setAttribute("open", "");
    }
    if (!dialogs.length) this.restoreFocus(focus);
  }

  private drawNotifications(): Element {
    const region = h("div", { class: "pf-notifications" });
    for (const n of this.answer?.notifications ?? []) {
      if (!isObj(n) || this.dismissed.has(str(n.id))) continue;
      const level = n.level === "ERROR" || n.level === "WARNING" ? n.level : "INFO";
      const notice = h(
        "div",
        { class: `pf-notice pf-notice-${level}`, role: level === "ERROR" ? "alert" : "status", "data-notification-id": str(n.id), "data-level": level },
        h("span", {}, str(n.message)),
      );
      const close = h("button", { type: "button", "aria-label": "Dismiss" }, "×");
      close.addEventListener("click", () => {
        this.dismissed.add(str(n.id));
        notice.remove();
      });
      notice.appendChild(close);
      region.appendChild(notice);
    }
    return region;
  }

  private drawSurface(surface: Surface): Element {
    const type = str(surface.type);
    const el = h("div", { class: "pf-surface", "data-surface": type, "data-page": str(surface.page) });
    if (type === "scanCard") {
      el.classList.add("pf-card");
      const p = isObj(surface.props) ? surface.props : {};
      const app = isObj(p.app) ? p.app : undefined;
      const image = app && safeUrl(app.image);
      const link = isObj(p.link) ? p.link : undefined;
      const href = link && safeUrl(link.href);
      el.append(
        h(
          "div",
          { class: "pf-actions" },
          image ? h("img", { src: image, alt: "", width: 20, height: 20 }) : null,
          app ? h("span", { class: "pf-muted" }, str(app.name)) : null,
        ),
      );
      if (p.title) el.appendChild(h("h2", {}, str(p.title)));
      setLength(el, "maxHeight", p.maxHeight);
      for (const b of this.drawBlocks(surface.blocks, type, "")) el.appendChild(b);
      if (link && href) el.appendChild(h("a", { href, rel: "noopener noreferrer", target: "_blank" }, str(link.title)));
      return el;
    }
    for (const b of this.drawBlocks(surface.blocks, type, "")) el.appendChild(b);
    return el;
  }

  private drawModal(modal: Modal, surface: Surface): HTMLDialogElement {
    const type = str(surface.type);
    const titleId = uid(`modal-${str(modal.page)}`);
    const blocks = Array.isArray(modal.blocks) ? modal.blocks : [];
    const header = blocks.find((b) => isObj(b) && (b as { component?: unknown }).component === "header") as { config?: Obj } | undefined;
    const title = str(header?.config?.title) || str(modal.page);
    const dialog = h("dialog", {
      class: `pf-modal${modal.wide ? " pf-modal-wide" : ""}`,
      "aria-modal": "true",
      "aria-labelledby": titleId,
      "data-modal-page": str(modal.page),
    });
    const close = h("button", { type: "button", class: "pf-btn", "aria-label": "Close" }, "×");
    close.addEventListener("click", () => void this.closeModal(type));
    dialog.append(
      h("div", { class: "pf-modal-head" }, h("h2", { id: titleId }, title), close),
      h("div", { class: "pf-modal-body" }, ...this.drawBlocks(blocks, type, "modal")),
    );
    // Escape closes the top modal (in state); Tab stays inside the dialog.
    dialog.addEventListener("cancel", (e) => {
      e.preventDefault();
      void this.closeModal(type);
    });
    dialog.addEventListener("keydown", (e) => {
      if (e.key !== "Tab") return;
      const items = Array.from(dialog.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => !el.closest("[hidden]"));
      if (!items.length) return;
      const [first, last] = [items[0], items[items.length - 1]];
      const active = dialog.ownerDocument.activeElement;
      if (e.shiftKey && (active === first || !dialog.contains(active))) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (active === last || !dialog.contains(active))) {
        e.preventDefault();
        first.focus();
      }
    });
    return dialog;
  }

  /** Closes the placement's top modal: the state without it, posted. */
  async closeModal(surface: string) {
    const modals = Array.isArray(this.state?.modals) ? [...this.state!.modals!] : [];
    for (let i = modals.length - 1; i >= 0; i--) {
      if (!isObj(modals[i]) || (modals[i].surface ?? "dashboard") === surface) {
        modals.splice(i, 1);
        break;
      }
    }
    this.state = { ...(this.state ?? {}), modals };
    await this.refresh();
  }

  drawBlocks(blocks: unknown, surface: string, path: string): Element[] {
    if (!Array.isArray(blocks)) return [];
    return blocks.map((b, i) => this.drawBlock(b, surface, `${path}/${i}`)).filter((e): e is Element => !!e);
  }

  drawBlock(input: unknown, surface: string, path: string): Element | null {
    const block = Array.isArray(input) ? { component: "row", children: input } : input;
    if (!isObj(block)) return null;
    const widget = typeof block.widgetComponent === "string" && typeof block.id === "string";
    const name = widget ? (block.widgetComponent as string) : str(block.component);
    const props = (widget ? block.props : block.config) as Obj;
    const id = typeof block.id === "string" ? block.id : undefined;
    const ctx = this.context(name, widget, id, surface, isObj(props) ? props : {}, this.drawBlocks(block.children, surface, path), path);
    const own = this.opts.components && Object.prototype.hasOwnProperty.call(this.opts.components, name) ? this.opts.components[name] : undefined;
    const standard = STANDARD.get(name);
    let el: Element;
    try {
      const drawn = own ? own(ctx.props, ctx) : standard ? standard(ctx.props, ctx, this, block.children) : placeholder(name, ctx.children);
      if (!(drawn instanceof Element)) throw new TypeError(`The renderer of ${name} returned no element`);
      el = drawn;
    } catch (e) {
      this.report(
        new PlatformError(0, "RENDERER_FAILED", `Component ${name}${id ? ` (${id})` : ""} could not be drawn: ${e instanceof Error ? e.message : str(e)}`),
      );
      el = placeholder(name, ctx.children, "could not be drawn");
    }
    el.classList.add("pf-block");
    el.setAttribute("data-component", name);
    if (id) el.setAttribute(widget ? "data-widget-id" : "data-node-id", id);
    return el;
  }

  private context(
    component: string,
    widget: boolean,
    id: string | undefined,
    surface: string,
    props: Obj,
    children: Element[],
    path: string,
  ): RenderContext & { props: Obj; key: string } {
    const data = widget && id ? this.answer?.referenceData?.[id] : undefined;
    return {
      id,
      component,
      widget,
      surface,
      props,
      key: `${surface}|${id ?? path}`,
      data: isObj(data) ? { rows: Array.isArray(data.rows) ? data.rows : [], total: typeof data.total === "number" ? data.total : 0 } : undefined,
      state: widget && id ? this.widgetState(id) : {},
      setState: (patch) => {
        if (widget && id) this.setWidgetState(id, patch);
      },
      // Every handler but a click may be one the widget does not declare (a change, an open): then the state is posted alone.
      action: (handler, payload) =>
        widget && id ? this.act({ widgetId: id, handler, ...(payload ? { payload } : {}), surface }, handler !== "click") : this.refresh(),
      refresh: () => this.refresh(),
      children,
    };
  }

  /** Where focus is (the widget and which of its focusable elements), to put it back after a draw. */
  private focusPath(): [string, number] | undefined {
    const active = this.root.ownerDocument.activeElement;
    if (!active || !this.root.contains(active)) return undefined;
    const block = active.closest("[data-widget-id],[data-node-id]");
    if (!block) return undefined;
    const key = block.getAttribute("data-widget-id") ?? `#${block.getAttribute("data-node-id")}`;
    return [key, Array.from(block.querySelectorAll(FOCUSABLE)).indexOf(active)];
  }

  private restoreFocus(path: [string, number] | undefined) {
    if (!path) return;
    const [key, index] = path;
    const block = Array.from(this.root.querySelectorAll("[data-widget-id],[data-node-id]")).find(
      (b) => (b.getAttribute("data-widget-id") ?? `#${b.getAttribute("data-node-id")}`) === key,
    );
    const items = block ? Array.from(block.querySelectorAll<HTMLElement>(FOCUSABLE)) : [];
    (items[index] ?? items[0])?.focus();
  }
}

export type AppInternals = App;

/** Draws the integration's app into `element` and answers a handle to drive it. */
export function mount(element: HTMLElement, options: MountOptions): MountHandle {
  const app = new App(element, options);
  if (options.autoRender !== false) void app.refresh();
  return {
    render: (body) => {
      if (body) app.opts.body = body;
      app.state = null;
      return app.refresh();
    },
    refresh: (state) => {
      if (state !== undefined) app.state = state;
      return app.refresh();
    },
    action: (action) => app.act(action),
    get answer() {
      return app.answer;
    },
    get state() {
      return app.state;
    },
    destroy: () => app.destroy(),
  };
}
