// Turns a mutated example into an HTTP request through the gateway, bounded in
// time, and writes it back compactly for a report.
import { SELF } from "cloudflare:test";
import { BASE } from "../support/api";
import type { Example } from "./operations";
import { toJsonText } from "./hostile";
import { percentEncode, utf8Loose } from "./mutate";

export interface Built {
  url: string;
  init: RequestInit & { headers: Record<string, string> };
  /** The body as text, for the report. */
  text?: string;
}

export function build(method: string, template: string, ex: Example, auth: string, requestId: string): Built {
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => ex.params?.[name] ?? "");
  const query = Object.entries(ex.query ?? {})
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : percentEncode(toJsonText(v.json))}`)
    .join("&");
  const headers: Record<string, string> = { "X-Request-Id": requestId };
  if (!ex.anonymous) headers.Authorization = ex.authorization ?? auth;
  let text: string | undefined;
  if (ex.body !== undefined) {
    text = toJsonText(ex.body);
    headers["Content-Type"] = "application/json";
  } else if (ex.csv) {
    text = ex.csv.rows.map((r) => r.join(",")).join("\n") + "\n";
    headers["X-Import-Config"] = percentEncode(toJsonText(ex.csv.config));
    headers["Content-Type"] = "text/csv";
  } else if (ex.bytes) {
    text = ex.bytes.text;
    Object.assign(headers, ex.bytes.headers);
  }
  return { url: `${BASE}${path}${query ? `?${query}` : ""}`, init: { method, headers, body: text === undefined ? undefined : utf8Loose(text) }, text };
}

export type Outcome = { status: number; json: any; text: string } | { timeout: true } | { threw: string };

export async function send(b: Built, timeoutMs: number): Promise<Outcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<Outcome>((resolve) => (timer = setTimeout(() => resolve({ timeout: true }), timeoutMs)));
  const answered = (async (): Promise<Outcome> => {
    try {
      const res = await SELF.fetch(b.url, b.init);
      const text = new TextDecoder().decode(await res.arrayBuffer());
      let json: any;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.status, json, text };
    } catch (e) {
      return { threw: (e as Error).message };
    }
  })();
  try {
    return await Promise.race([answered, expired]);
  } finally {
    clearTimeout(timer);
  }
}

const visible = (s: string) => s.replace(/[\u0000-\u001f\u007f\ud800-\udfff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** Long repeats folded (`x…×10001`), credentials left out: a request as one line. */
export function describe(b: Built): string {
  const fold = (s: string) => s.replace(/(.{1,16}?)\1{7,}/gs, (m, unit: string) => `${unit}…×${m.length / unit.length}`);
  const extra = Object.entries(b.init.headers)
    .filter(([k]) => k !== "Authorization" && k !== "X-Request-Id" && k !== "Content-Type")
    .map(([k, v]) => ` ${k}: ${fold(v)}`)
    .join("");
  return `${b.init.method} ${fold(b.url.slice(BASE.length))}${extra}${b.text === undefined ? "" : ` ${fold(visible(b.text))}`}`;
}
