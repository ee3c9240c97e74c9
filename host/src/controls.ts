// Small controls the components share.
import { at, h, isObj, str, uid } from "./dom";
import type { Obj } from "./types";

export const button = (label: string, onClick: () => void, cls = "pf-btn", attrs: Record<string, string | boolean | undefined> = {}) => {
  const b = h("button", { type: "button", class: cls, ...attrs }, label);
  b.addEventListener("click", onClick);
  return b;
};

/** A labelled control: the label names the control for assistive technology. */
export function field(label: string, control: HTMLElement, required = false): HTMLElement {
  const id = uid("field");
  control.id = id;
  if (required) control.setAttribute("aria-required", "true");
  return h(
    "div",
    { class: "pf-field" },
    h("label", { for: id }, label, required ? h("span", { class: "pf-required", "aria-hidden": "true" }, " *") : null),
    control,
  );
}

/** A select's choices: inline `options`, else its data source's rows through valuePath and labelPath. */
export function choices(props: Obj, rows: unknown[] | undefined): { value: unknown; label: string }[] {
  if (Array.isArray(props.options)) return props.options.filter(isObj).map((o) => ({ value: o.value, label: str(o.label ?? o.value) }));
  const vp = str(props.valuePath) || "value";
  const lp = str(props.labelPath) || "label";
  return (rows ?? []).map((r) => ({ value: at(r, vp), label: str(at(r, lp) ?? at(r, vp)) }));
}

/** A <select> over choices; `pick` gets the chosen value as the choices carry it (a number stays a number). */
export function selectBox(
  options: { value: unknown; label: string }[],
  current: unknown,
  placeholder: string,
  pick: (value: unknown) => void,
): HTMLSelectElement {
  const el = h("select", {}, h("option", { value: "" }, placeholder || "—"));
  options.forEach((o, i) => el.appendChild(h("option", { value: String(i), selected: o.value === current }, o.label)));
  el.addEventListener("change", () => pick(el.value === "" ? null : options[Number(el.value)]?.value));
  return el;
}
