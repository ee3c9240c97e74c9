// The example host page (host/example, docs/hosts.md) served as a host serves
// it: from an origin of its own (`npm run dev` listens on HOST_EXAMPLE_PORT,
// default 8788), under a strict Content-Security-Policy that admits the
// platform's origin for the SDK module and the render and upload requests, and
// nothing inline. `npm run dev` serves it and test/e2e/host-sdk.test.ts drives
// the page dev serves.
//
// `/config.js` is what a host's server hands its page: the platform's origin
// (dev's own) and the integration, user and credential read, at each request,
// from `host-example.json` in dev's data folder, which the developer writes
// (docs/hosts.md). The credential never travels in a URL, so no query string
// lands in a log and no fragment in the browser's history.
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join, relative } from "node:path";
import { root } from "./paths.mjs";

const EXAMPLE = join(root, "host", "example");
/** The page's files, as served (`/` is index.html). */
const FILES = { "index.html": "text/html; charset=utf-8", "example.js": "text/javascript; charset=utf-8", "example.css": "text/css; charset=utf-8" };
/** The keys `host-example.json` may give the page. */
const CONFIG_KEYS = ["integrationId", "credential", "user", "company"];
/** A 1x1 transparent PNG. */
const PIXEL = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");
/**
 * Same-origin resources a spec may show in its image, iframe and file viewer widgets (the CSP admits them as 'self');
 * the browser test's spec does.
 */
const SAMPLES = {
  "/pixel.png": { type: "image/png", body: PIXEL },
  "/frame.html": {
    type: "text/html; charset=utf-8",
    body: "<!doctype html><html lang=en><title>Embedded</title><p>An embedded page</p>",
    headers: { "Content-Security-Policy": "default-src 'none'" },
  },
  "/doc.txt": { type: "text/plain; charset=utf-8", body: "A plain text document" },
};

/** Where the page's integration and credential live: `host-example.json` in dev's data folder. */
export function hostExampleConfigFile(dataDir) {
  return join(dataDir, "host-example.json");
}

/**
 * Writes the page's configuration (readable by its owner only), as the docs' one-line step does.
 * @param {string} dataDir
 * @param {{ integrationId: string, credential: string, user?: string, company?: string }} config
 */
export function writeHostExampleConfig(dataDir, config) {
  writeFileSync(hostExampleConfigFile(dataDir), `${JSON.stringify(config)}\n`, { mode: 0o600 });
}

/** The page's CSP: the platform's origin for the module and the requests, everything else its own, nothing inline. */
export function hostExampleCsp(platformOrigin) {
  return [
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
}

/** What `/config.js` exports: the file's keys and the platform's origin, or a `problem` the page shows instead of rendering. */
function pageConfig(configFile, platformOrigin) {
  const inside = relative(root, configFile);
  const named = inside.startsWith("..") ? configFile : inside;
  let saved;
  try {
    saved = JSON.parse(readFileSync(configFile, "utf8"));
  } catch (e) {
    const problem =
      e?.code === "ENOENT"
        ? `No integration configured: write ${named} with the integration id and its credential (docs/hosts.md, "The example page").`
        : `${named} is not JSON: ${e?.message ?? e}`;
    return { baseUrl: platformOrigin, problem };
  }
  const config = { baseUrl: platformOrigin };
  for (const key of CONFIG_KEYS) if (typeof saved?.[key] === "string") config[key] = saved[key];
  const missing = ["integrationId", "credential"].filter((key) => !config[key]);
  if (missing.length) config.problem = `${named} lacks ${missing.join(" and ")} (docs/hosts.md, "The example page").`;
  return config;
}

/**
 * Serves host/example on 127.0.0.1:`port` (0: a free port). Requests naming another host than 127.0.0.1 or
 * localhost are refused, so a page on a rebound DNS name cannot read config.js.
 * @param {{ port: number, platformOrigin: string, configFile: string }} opts
 * @returns {Promise<{ origin: string, port: number, close: () => Promise<void> }>}
 */
export function serveHostExample({ port, platformOrigin, configFile }) {
  const csp = hostExampleCsp(platformOrigin);
  const server = createServer((req, res) => {
    const send = (status, type, body, headers = {}) => {
      res.writeHead(status, { "Content-Type": type, "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", ...headers });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    const listening = server.address()?.port;
    if (req.headers.host !== `127.0.0.1:${listening}` && req.headers.host !== `localhost:${listening}`)
      return send(421, "text/plain; charset=utf-8", "misdirected request");
    if (req.method !== "GET" && req.method !== "HEAD") return send(405, "text/plain; charset=utf-8", "method not allowed", { Allow: "GET, HEAD" });
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const file = path === "/" ? "index.html" : path.slice(1);
    if (Object.hasOwn(FILES, file))
      return send(200, FILES[file], readFileSync(join(EXAMPLE, file)), file === "index.html" ? { "Content-Security-Policy": csp } : {});
    if (file === "config.js") return send(200, FILES["example.js"], `export default ${JSON.stringify(pageConfig(configFile, platformOrigin))};\n`);
    const sample = SAMPLES[path];
    if (sample) return send(200, sample.type, sample.body, sample.headers);
    if (path === "/favicon.ico") return send(204, "image/x-icon", "");
    send(404, "text/plain; charset=utf-8", "not found");
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const { port: bound } = server.address();
      resolve({
        origin: `http://127.0.0.1:${bound}`,
        port: bound,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
