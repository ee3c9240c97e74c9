// The example host page (host/example) served as a host serves it: from its
// own origin, under a strict Content-Security-Policy that admits the
// platform's origin for the SDK module and the render and upload requests, and
// nothing inline. Each variant is a folder (`/<variant>/`) with the same page
// and script and its own config.js (what a host's server hands its page).
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { root } from "./dev";

export interface HostPage {
  origin: string;
  /** Sets what `/<variant>/config.js` gives the page. */
  configure(variant: string, config: Record<string, unknown>): void;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  txt: "text/plain; charset=utf-8",
};
/** A 1x1 transparent PNG, for the image widgets. */
const PIXEL = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");

export async function serveHostPage(platformOrigin: string): Promise<HostPage> {
  const configs = new Map<string, Record<string, unknown>>();
  const example = (name: string) => readFileSync(join(root, "host", "example", name));
  const csp = [
    "default-src 'none'",
    `script-src 'self' ${platformOrigin}`,
    `connect-src ${platformOrigin}`,
    "style-src 'self'",
    "img-src 'self'",
    "frame-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
  ].join("; ");
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const send = (status: number, type: string, body: Buffer | string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "Content-Type": type, "Cache-Control": "no-store", ...headers });
      res.end(body);
    };
    const [, variant, file] = /^\/([a-z0-9-]+)\/([a-z.]*)$/.exec(path) ?? [];
    if (path === "/pixel.png") return send(200, "image/png", PIXEL);
    if (path === "/frame.html")
      return send(200, TYPES.html, "<!doctype html><html lang=en><title>Embedded</title><p>An embedded page</p>", {
        "Content-Security-Policy": "default-src 'none'",
      });
    if (path === "/doc.txt") return send(200, TYPES.txt, "A plain text document");
    if (variant && configs.has(variant)) {
      if (file === "" || file === "index.html") return send(200, TYPES.html, example("index.html"), { "Content-Security-Policy": csp });
      if (file === "example.js" || file === "example.css") return send(200, TYPES[file.split(".")[1]], example(file));
      if (file === "config.js") return send(200, TYPES.js, `export default ${JSON.stringify(configs.get(variant))};\n`);
    }
    if (path === "/favicon.ico") return send(204, "image/x-icon", "");
    send(404, TYPES.txt, "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    configure: (variant, config) => void configs.set(variant, config),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
