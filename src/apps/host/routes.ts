// GET /apps/host/v1.js: the host SDK (host/, docs/hosts.md), an ES module a
// host page imports. The bytes are host/dist/v1.txt, built from host/src by
// scripts/build-host.mjs before the Worker is bundled and imported as text
// (wrangler.toml `rules`), so the Worker answers it from memory with headers of
// its own. `v1` names the API: a change that breaks a host gets `v2`, so the
// module may be cached for a year; a page on any origin may import it (a
// module script is fetched with CORS), and it carries nothing private.
import { route } from "../../gateway/route";
import { noAuth } from "../../gateway/route-auth";
import source from "../../../host/dist/v1.txt";

const HEADERS = {
  "Content-Type": "text/javascript; charset=utf-8",
  "Cache-Control": "public, max-age=31536000, immutable",
  "Access-Control-Allow-Origin": "*",
  "Cross-Origin-Resource-Policy": "cross-origin",
  "X-Content-Type-Options": "nosniff",
};

export const hostRoutes = [
  route({
    operation: "getHostSdk",
    method: "get",
    path: "/apps/host/v1.js",
    tag: "apps",
    summary: "The host SDK: an ES module that draws a render answer into a page, posts actions and state back and uploads files (docs/hosts.md)",
    auth: noAuth,
    responses: {
      200: { description: "text/javascript: the SDK's ES module, cacheable for a year", contentType: "text/javascript", schema: { type: "string" } },
    },
    handler: async () => new Response(source, { status: 200, headers: HEADERS }),
  }),
];
