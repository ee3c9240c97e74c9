// The props of a scanCard, checked strictly once resolved: the host lays the
// card out from them, so a wrong shape skips the card rather than reach it.
import type { ScanCardProps } from "./types";
import { isObject } from "../../../lib/is-object";

/** `240px`, `12rem`, `50vh`, `33.5%`: a non-negative number and a CSS length unit. */
const CSS_LENGTH = /^(\d+(\.\d+)?|\.\d+)(px|em|rem|vh|vw|vmin|vmax|%|pt|cm|mm|in|ch|ex)$/;
const PROPS = ["title", "link", "app", "maxHeight"];

type Obj = Record<string, unknown>;

export class ScanCardPropError extends Error {
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = "ScanCardPropError";
  }
}

function onlyKeys(value: Obj, field: string, allowed: string[]): void {
  const extra = Object.keys(value).find((key) => !allowed.includes(key));
  if (extra !== undefined) throw new ScanCardPropError(field === "props" ? extra : `${field}.${extra}`, `is not a prop (${field} takes ${allowed.join(", ")})`);
}

function string(value: unknown, field: string): string {
  if (typeof value !== "string" || value === "")
    throw new ScanCardPropError(field, `must be a non-empty string, got ${value === undefined ? "nothing" : JSON.stringify(value).slice(0, 60)}`);
  return value;
}

/** The resolved props as the answer carries them; throws ScanCardPropError naming the first field that fails. */
export function checkScanCardProps(props: unknown): ScanCardProps {
  if (!isObject(props)) throw new ScanCardPropError("(props)", "must be an object");
  onlyKeys(props, "props", PROPS);
  const out: ScanCardProps = { title: string(props.title, "title") };
  if (props.link !== undefined) {
    if (!isObject(props.link)) throw new ScanCardPropError("link", "must be an object { title, href }");
    onlyKeys(props.link, "link", ["title", "href"]);
    out.link = { title: string(props.link.title, "link.title"), href: string(props.link.href, "link.href") };
  }
  if (props.app !== undefined) {
    if (!isObject(props.app)) throw new ScanCardPropError("app", "must be an object { name, image? }");
    onlyKeys(props.app, "app", ["name", "image"]);
    out.app = { name: string(props.app.name, "app.name") };
    if (props.app.image !== undefined) out.app.image = string(props.app.image, "app.image");
  }
  if (props.maxHeight !== undefined) {
    if (typeof props.maxHeight !== "string" || !CSS_LENGTH.test(props.maxHeight)) {
      throw new ScanCardPropError("maxHeight", `must be a CSS length such as 240px, 12rem or 50vh, got ${JSON.stringify(props.maxHeight).slice(0, 60)}`);
    }
    out.maxHeight = props.maxHeight;
  }
  return out;
}
