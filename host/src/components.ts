// The standard/1 catalogue drawn (src/definition/language/components/standard.ts): one
// renderer per component. Every value from the answer lands as text or as a
// checked attribute; handlers post the payloads the catalogue declares.
import { at, h, isObj, safeUrl, setLength, str, svg, uid, type Child } from "./dom";
import { button, choices, field, selectBox } from "./controls";
import { markdown } from "./markdown";
import { dataGrid } from "./grid";
import { form } from "./form";
import type { App } from "./mount";
import type { Obj, RenderContext } from "./types";

export type Ctx = RenderContext & { props: Obj; key: string };
export type Standard = (props: Obj, ctx: Ctx, app: App, childBlocks: unknown) => Element;

/** What an unknown component becomes: a labelled box (its children still drawn inside), never a crash. */
export function placeholder(name: string, children: Element[], why = "is not a component this host can draw"): Element {
  const label = `Unknown component ${name || "(unnamed)"}`;
  return h("div", { class: "pf-unknown", role: "group", "aria-label": label }, h("p", {}, `Component “${name}” ${why}`), ...children);
}

const title = (props: Obj) => str(props.title);

const section: Standard = (props, ctx, app) => {
  const collapsible = props.collapsible === true;
  if (!collapsible) return h("section", { class: "pf-section" }, title(props) ? h("h2", {}, title(props)) : null, ...ctx.children);
  const remembered = app.ui.get(ctx.key);
  const collapsed = typeof remembered === "boolean" ? remembered : ctx.state.collapsed === true || props.collapsed === true;
  const el = h("details", { class: "pf-section", open: !collapsed }, h("summary", {}, title(props) || "Section"), ...ctx.children);
  el.addEventListener("toggle", () => {
    app.ui.set(ctx.key, !el.open);
    ctx.setState({ collapsed: !el.open });
  });
  return el;
};

const row: Standard = (props, ctx) => {
  const gap = ["none", "small", "large"].includes(str(props.gap)) ? ` pf-gap-${str(props.gap)}` : "";
  return h("div", { class: `pf-row${gap}` }, ...ctx.children);
};

const tabs: Standard = (props, ctx, app, childBlocks) => {
  const blocks = Array.isArray(childBlocks) ? childBlocks : [];
  const titles = ctx.children.map((_, i) => {
    const b = blocks[i];
    const p = isObj(b) ? (isObj(b.props) ? b.props : isObj(b.config) ? b.config : {}) : {};
    return str(p.title) || str(p.label) || `Tab ${i + 1}`;
  });
  const remembered = app.ui.get(ctx.key);
  const wanted =
    typeof remembered === "number"
      ? remembered
      : typeof ctx.state.selected === "number"
        ? ctx.state.selected
        : typeof props.selected === "number"
          ? props.selected
          : 0;
  const selected = Math.min(Math.max(0, wanted), Math.max(0, ctx.children.length - 1));
  const base = uid("tabs");
  const list = h("div", { class: "pf-tablist", role: "tablist" });
  const panels = ctx.children.map((child, i) =>
    h("div", { class: "pf-tabpanel", role: "tabpanel", id: `${base}-p${i}`, "aria-labelledby": `${base}-t${i}`, tabindex: 0, hidden: i !== selected }, child),
  );
  const buttons = titles.map((t, i) =>
    h(
      "button",
      {
        type: "button",
        role: "tab",
        class: "pf-tab",
        id: `${base}-t${i}`,
        "aria-controls": `${base}-p${i}`,
        "aria-selected": String(i === selected),
        tabindex: i === selected ? 0 : -1,
      },
      t,
    ),
  );
  const select = (i: number, focus: boolean) => {
    buttons.forEach((b, j) => {
      b.setAttribute("aria-selected", String(i === j));
      b.tabIndex = i === j ? 0 : -1;
      panels[j].hidden = i !== j;
    });
    if (focus) buttons[i].focus();
    app.ui.set(ctx.key, i);
    if (ctx.widget) {
      ctx.setState({ selected: i });
      void app.act({ widgetId: ctx.id!, handler: "change", payload: { index: i }, surface: ctx.surface }, true);
    }
  };
  buttons.forEach((b, i) => {
    b.addEventListener("click", () => select(i, false));
    b.addEventListener("keydown", (e) => {
      const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
      if (step) select((i + step + buttons.length) % buttons.length, true);
    });
    list.appendChild(b);
  });
  return h("div", { class: "pf-tabs" }, list, ...panels);
};

const header: Standard = (props, ctx) =>
  h(
    "header",
    { class: "pf-header" },
    props.title !== undefined ? h("h2", {}, str(props.title)) : null,
    props.subtitle !== undefined ? h("p", {}, str(props.subtitle)) : null,
    ...ctx.children,
  );
const footer: Standard = (props, ctx) => h("footer", { class: "pf-footer" }, props.text !== undefined ? str(props.text) : null, ...ctx.children);
const divider: Standard = () => h("hr", { class: "pf-divider" });

const iframe: Standard = (props) => {
  const src = safeUrl(props.url);
  if (!src) return h("p", { class: "pf-muted" }, `${str(props.title) || "Embedded page"}: no address to show`);
  const el = h("iframe", {
    class: "pf-frame",
    src,
    title: str(props.title) || "Embedded page",
    sandbox: "allow-scripts allow-forms allow-popups",
    referrerpolicy: "no-referrer",
    loading: "lazy",
  });
  setLength(el, "height", props.height);
  return el;
};

const fileViewer: Standard = (props) => {
  const src = safeUrl(props.url);
  const name = str(props.name) || "file";
  const type = str(props.contentType ?? props.type);
  if (!src) return h("p", { class: "pf-muted" }, `${name}: nothing to show`);
  const link = h("a", { href: src, rel: "noopener noreferrer", target: "_blank", download: name }, `Download ${name}`);
  const shown = type.startsWith("image/")
    ? h("img", { class: "pf-image", src, alt: name })
    : type === "application/pdf" || type.startsWith("text/")
      ? h("iframe", { class: "pf-frame", src, title: name, sandbox: type === "application/pdf" ? undefined : "", referrerpolicy: "no-referrer" })
      : null;
  return h("div", { class: "pf-file" }, shown, h("p", {}, link));
};

const text: Standard = (props) => h("p", { class: props.tone === "muted" ? "pf-muted" : props.tone === "strong" ? "pf-strong" : undefined }, str(props.text));

const heading: Standard = (props) => {
  const level = typeof props.level === "number" && props.level >= 1 && props.level <= 6 ? Math.floor(props.level) : 2;
  return h(`h${level}` as "h2", {}, str(props.text));
};

const md: Standard = (props) => markdown(str(props.markdown));

const btn: Standard = (props, ctx) => {
  const variant = ["primary", "danger"].includes(str(props.variant)) ? ` pf-btn-${str(props.variant)}` : "";
  return button(str(props.label) || "Button", () => void ctx.action("click"), `pf-btn${variant}`, { disabled: props.disabled === true });
};

const link: Standard = (props, ctx) => {
  const href = safeUrl(props.href, ["http:", "https:", "mailto:"]);
  if (href) return h("a", { href, rel: "noopener noreferrer", target: props.newTab ? "_blank" : undefined }, str(props.label));
  return button(str(props.label), () => void ctx.action("click"), "pf-linkbtn");
};

const image: Standard = (props) => {
  const src = safeUrl(props.src, ["http:", "https:", "blob:"]);
  if (!src) return h("p", { class: "pf-muted" }, str(props.alt) || "Image");
  const el = h("img", { class: "pf-image", src, alt: str(props.alt) });
  setLength(el, "width", props.width);
  setLength(el, "height", props.height);
  return el;
};

const TONES = ["neutral", "info", "success", "warning", "danger"];
const badge: Standard = (props) => h("span", { class: `pf-badge pf-tone-${TONES.includes(str(props.tone)) ? str(props.tone) : "neutral"}` }, str(props.label));

const alert: Standard = (props) => {
  const level = ["info", "success", "warning", "error"].includes(str(props.level)) ? str(props.level) : "info";
  return h(
    "div",
    { class: `pf-alert pf-alert-${level}`, role: level === "error" || level === "warning" ? "alert" : "status" },
    props.title !== undefined ? h("strong", {}, str(props.title)) : null,
    str(props.message),
  );
};

const TRENDS: Record<string, string> = { up: "▲ up", down: "▼ down", flat: "▶ flat" };
const stat: Standard = (props) =>
  h(
    "div",
    { class: "pf-stat" },
    h("span", { class: "pf-stat-label" }, str(props.label)),
    h(
      "span",
      { class: "pf-stat-value" },
      props.value === null || props.value === undefined ? "–" : str(props.value),
      props.unit !== undefined ? ` ${str(props.unit)}` : null,
    ),
    TRENDS[str(props.trend)] ? h("span", { class: "pf-muted" }, TRENDS[str(props.trend)]) : null,
  );

const select: Standard = (props, ctx) => {
  const current = "value" in ctx.state ? ctx.state.value : props.value;
  const el = selectBox(choices(props, ctx.data?.rows), current, str(props.placeholder), (value) => {
    ctx.setState({ value });
    void ctx.action("change", { value });
  });
  return field(str(props.label) || "Choose", el);
};

const checkbox: Standard = (props, ctx) => {
  const id = uid("check");
  const checked = typeof ctx.state.checked === "boolean" ? ctx.state.checked : props.checked === true;
  const input = h("input", { type: "checkbox", id, checked });
  input.addEventListener("change", () => {
    ctx.setState({ checked: input.checked });
    void ctx.action("change", { checked: input.checked });
  });
  return h("div", { class: "pf-check" }, input, h("label", { for: id }, str(props.label)));
};

const textInput: Standard = (props, ctx) => {
  const value = typeof ctx.state.value === "string" ? ctx.state.value : str(props.value);
  const input = props.multiline
    ? h("textarea", { rows: 3, placeholder: str(props.placeholder) || undefined })
    : h("input", { type: "text", placeholder: str(props.placeholder) || undefined });
  input.value = value;
  input.addEventListener("input", () => ctx.setState({ value: input.value }));
  input.addEventListener("change", () => void ctx.action("change", { value: input.value }));
  if (!props.multiline)
    input.addEventListener("keydown", (e) => {
      if ((e as KeyboardEvent).key === "Enter") void ctx.action("submit", { value: input.value });
    });
  return field(str(props.label) || "Text", input);
};

const list: Standard = (props, ctx, app) => {
  const rows = ctx.data?.rows ?? [];
  if (!rows.length) return h("p", { class: "pf-muted" }, str(props.emptyText) || "Nothing to show");
  const tp = str(props.titlePath) || "name";
  const sp = str(props.subtitlePath);
  return h(
    "ul",
    { class: "pf-list" },
    ...rows.map((r) => {
      const itemId = isObj(r) && (typeof r.id === "string" || typeof r.id === "number") ? r.id : undefined;
      const label = str(at(r, tp) ?? (isObj(r) ? (r.title ?? r.id) : r));
      const main: Child =
        itemId !== undefined && ctx.id && !app.lacks(ctx.id, "open")
          ? button(label, () => void app.act({ widgetId: ctx.id!, handler: "open", payload: { itemId }, surface: ctx.surface }, true), "pf-linkbtn")
          : h("span", {}, label);
      return h("li", {}, main, sp ? h("div", { class: "pf-muted" }, str(at(r, sp))) : null);
    }),
  );
};

const chart: Standard = (props, ctx) => {
  const rows = ctx.data?.rows ?? [];
  const points = rows.map((r) => ({ label: str(at(r, str(props.x))), value: Number(at(r, str(props.y))) })).filter((p) => Number.isFinite(p.value));
  const kind = props.kind === "line" || props.kind === "pie" ? props.kind : "bar";
  const name = str(props.title) || `${kind} chart`;
  const W = 320;
  const H = 160;
  const max = Math.max(1, ...points.map((p) => Math.abs(p.value)));
  const graphic = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `${name}: ${points.map((p) => `${p.label} ${p.value}`).join(", ")}` });
  if (kind === "bar") {
    const w = W / Math.max(1, points.length);
    points.forEach((p, i) => {
      const bh = (Math.max(0, p.value) / max) * (H - 10);
      graphic.appendChild(
        svg("rect", { class: "pf-bar", x: (i * w + w * 0.1).toFixed(1), y: (H - bh).toFixed(1), width: (w * 0.8).toFixed(1), height: bh.toFixed(1) }),
      );
    });
  } else if (kind === "line") {
    const step = W / Math.max(1, points.length - 1);
    graphic.appendChild(
      svg("polyline", {
        class: "pf-line",
        points: points.map((p, i) => `${(i * step).toFixed(1)},${(H - 5 - (Math.max(0, p.value) / max) * (H - 10)).toFixed(1)}`).join(" "),
      }),
    );
  } else {
    const total = points.reduce((s, p) => s + Math.max(0, p.value), 0) || 1;
    let angle = -Math.PI / 2;
    const [cx, cy, r] = [W / 2, H / 2, H / 2 - 4];
    points.forEach((p, i) => {
      const sweep = (Math.max(0, p.value) / total) * Math.PI * 2;
      const end = angle + sweep;
      const d =
        sweep >= Math.PI * 2 - 1e-9
          ? `M${cx - r},${cy}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`
          : `M${cx},${cy}L${(cx + r * Math.cos(angle)).toFixed(2)},${(cy + r * Math.sin(angle)).toFixed(2)}A${r},${r} 0 ${sweep > Math.PI ? 1 : 0},1 ${(cx + r * Math.cos(end)).toFixed(2)},${(cy + r * Math.sin(end)).toFixed(2)}Z`;
      graphic.appendChild(svg("path", { class: `pf-slice-${i % 5}`, d }));
      angle = end;
    });
  }
  const table = h(
    "table",
    {},
    h("caption", { class: "pf-sr" }, name),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, str(props.x) || "label"), h("th", { scope: "col" }, str(props.y) || "value"))),
    h("tbody", {}, ...points.map((p) => h("tr", {}, h("td", {}, p.label), h("td", { class: "pf-num" }, String(p.value))))),
  );
  return h("figure", { class: "pf-chart" }, props.title !== undefined ? h("figcaption", { class: "pf-strong" }, str(props.title)) : null, graphic, table);
};

export const STANDARD = new Map<string, Standard>([
  ["section", section],
  ["row", row],
  ["tabs", tabs],
  ["header", header],
  ["footer", footer],
  ["divider", divider],
  ["iframe", iframe],
  ["file_viewer", fileViewer],
  ["text", text],
  ["heading", heading],
  ["markdown", md],
  ["button", btn],
  ["link", link],
  ["image", image],
  ["badge", badge],
  ["alert", alert],
  ["stat", stat],
  ["select", select],
  ["checkbox", checkbox],
  ["text_input", textInput],
  ["form", form],
  ["data_grid", dataGrid],
  ["list", list],
  ["chart", chart],
]);
