// GET /apps/{specId}/preview through the gateway: the author's HTML page (a
// module script that draws the app with the host SDK), its headers and CSP,
// who may open it, and that nothing a spec says reaches the HTML as markup
// (test/e2e/preview-page.test.ts drives it in a browser);
// and the requests its POST refuses because another site's page can send them.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError } from "../support/api";
import { roleToken } from "../access/fixture";
import { insertSpec, putConfig } from "./fixture";
import { previewPageHeaders, sdkSources } from "../../src/apps/render/preview-page";

/** Keys a spec may choose freely (widget ids, handler and page names), each written to break out of a script or an attribute. */
const HOSTILE_WIDGET = "w</script><script>alert(1)</script>";
const HOSTILE_HANDLER = "go<!--";
const HOSTILE_PAGE = 'p"><img src=x onerror=alert(2)>';
const HOSTILE_TITLE = "</script><script>alert(3)</script>";

const spec = {
  dashboards: {
    main: {
      name: "Main",
      surfaces: { dashboard: "home" },
      pages: {
        home: {
          widgets: {
            [HOSTILE_WIDGET]: { widgetComponent: "heading", config: { title: HOSTILE_TITLE } },
            open: {
              widgetComponent: "button",
              config: { label: "Open" },
              actionHandlers: { [HOSTILE_HANDLER]: [{ kind: "navigate", page: HOSTILE_PAGE }], click: [{ kind: "navigate", page: "home" }] },
            },
            shared: { widgetComponent: "text" },
          },
          layout: [[HOSTILE_WIDGET, "open"], ["shared"]],
        },
        [HOSTILE_PAGE]: { layout: [["shared"]] },
      },
      widgets: { shared: { widgetComponent: "text", actionHandlers: { refresh: [{ kind: "navigate", page: "home" }] } } },
    },
  },
};

const OUTLINE = /<script type="application\/json" id="outline">([^<]*)<\/script>/;

async function activated() {
  const t = await createTenant();
  const published = await insertSpec(t, [spec]);
  expect((await putConfig(t, published.id, { config: {} })).status).toBe(200);
  return { t, specId: published.id };
}

describe("GET /apps/{specId}/preview", () => {
  it("serves an HTML page whose one module script, under a per-answer nonce, imports the host SDK from the service's own origin", async () => {
    const { t, specId } = await activated();
    const res = await call("GET", `/apps/${specId}/preview`, { auth: t.auth });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("Referrer-Policy")).toBe("no-referrer");
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    const csp = res.headers.get("Content-Security-Policy")!;
    const nonce = /script-src 'nonce-([A-Za-z0-9_-]{24})'/.exec(csp)?.[1];
    expect(nonce, csp).toBeDefined();
    // Scripts: the nonce's, and the SDK module at its one path on the request's origin and PUBLIC_URL's. No 'self', no 'unsafe-inline', no 'unsafe-eval'.
    const sdk = `http://platform.test/apps/host/v1.js ${new URL(env.PUBLIC_URL).origin}/apps/host/v1.js`;
    expect(csp).toBe(
      `default-src 'none'; script-src 'nonce-${nonce}' ${sdk}; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' https:; frame-src 'self' https:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    expect(csp).not.toMatch(/unsafe-|'self' 'nonce|script-src[^;]*'self'|strict-dynamic/);
    // Every script and style runs under that nonce, save the JSON data block (which never runs).
    expect(res.text.match(/<script[^>]*>/g)).toEqual(['<script type="application/json" id="outline">', `<script type="module" nonce="${nonce}">`]);
    expect(res.text.match(/<style[^>]*>/g)).toEqual([`<style nonce="${nonce}">`]);
    // The module imports the SDK from the page's own origin, and nothing else is loaded: no src, href, @import or url().
    expect(res.text.match(/\bimport\b[^;]*;/g)).toEqual(['import { mount } from "/apps/host/v1.js";']);
    expect(res.text.replace(OUTLINE, "")).not.toMatch(/\b(src|href)=|@import|url\(/);
    // Like the SDK, the page builds elements from text only.
    expect(res.text).not.toMatch(/\binnerHTML\b|\bouterHTML\b|insertAdjacentHTML|document\.write|\beval\(|new Function\(|setAttribute\("on/);
    expect(res.text).toContain(`<h1>Preview of app spec <code>${specId}</code></h1>`);
    // It mounts the app as a host would, posting to its own path with the browser's credentials.
    expect(res.text).toContain("location.origin + location.pathname");
    expect(res.text).toMatch(/mount\(\$\("app"\), \{\s*endpoint,\s*fetchCredentials: "same-origin",/);
    const again = await call("GET", `/apps/${specId}/preview`, { auth: t.auth });
    expect(again.headers.get("Content-Security-Policy")).not.toContain(nonce);
    // The module it imports is the service's, served without credentials.
    const module = await call("GET", "/apps/host/v1.js");
    expect(module.status).toBe(200);
    expect(module.headers.get("Content-Type")).toBe("text/javascript; charset=utf-8");
    expect(module.text).toMatch(/export\s*\{[^}]*\bmount\b/);
  });

  it("names the SDK's URL on each of the service's origins in script-src, and nothing for a PUBLIC_URL that is no URL", () => {
    expect(sdkSources("http://platform.test/apps/x/preview", "http://platform.test/")).toEqual(["http://platform.test/apps/host/v1.js"]);
    expect(sdkSources("http://127.0.0.1:8787/apps/x/preview", "https://apps.example.com/base")).toEqual([
      "http://127.0.0.1:8787/apps/host/v1.js",
      "https://apps.example.com/apps/host/v1.js",
    ]);
    expect(sdkSources("https://a.example/apps/x/preview", "not a url")).toEqual(["https://a.example/apps/host/v1.js"]);
    expect(sdkSources("https://a.example/apps/x/preview")).toEqual(["https://a.example/apps/host/v1.js"]);
    expect(previewPageHeaders("n0nce", sdkSources("https://a.example/p"))["Content-Security-Policy"]).toContain(
      "script-src 'nonce-n0nce' https://a.example/apps/host/v1.js;",
    );
  });

  it("writes the spec's page keys and action handlers only as inert JSON, never as markup", async () => {
    const { t, specId } = await activated();
    const res = await call("GET", `/apps/${specId}/preview`, { auth: t.auth });
    expect(res.status, res.text).toBe(200);
    for (const raw of [HOSTILE_WIDGET, HOSTILE_HANDLER, HOSTILE_PAGE, HOSTILE_TITLE, "<script>alert", "<img", "<!--"]) expect(res.text, raw).not.toContain(raw);
    const block = OUTLINE.exec(res.text)?.[1];
    expect(block).toBeDefined();
    expect(block).not.toMatch(/[<>&]/);
    expect(JSON.parse(block!)).toEqual({
      dashboards: {
        main: {
          pages: ["home", HOSTILE_PAGE],
          shared: { shared: ["refresh"] },
          pageWidgets: { home: { [HOSTILE_WIDGET]: [], open: [HOSTILE_HANDLER, "click"], shared: [] }, [HOSTILE_PAGE]: {} },
          modalWidgets: {},
        },
      },
    });
    // The widget's config is no part of the page: only the render answer the page fetches carries it.
    const answer = await call("POST", `/apps/${specId}/preview`, { auth: t.auth });
    expect(answer.json.data.surfaces[0].blocks[0].children[0]).toEqual({ id: HOSTILE_WIDGET, widgetComponent: "heading", props: { title: HOSTILE_TITLE } });
  });

  it("asks a browser for Basic credentials, in the error envelope, when none or wrong ones are sent", async () => {
    const { t, specId } = await activated();
    for (const auth of [undefined, `Basic ${btoa(`${t.clientId}:wrong`)}`]) {
      const res = await call("GET", `/apps/${specId}/preview`, { auth });
      expectError(res, 401, "UNAUTHORIZED");
      expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
      expect(res.headers.get("WWW-Authenticate")).toMatch(/^Basic realm="platform"(,|$)/);
    }
  });

  it("needs app:read, and an activation of a spec the tenant can see", async () => {
    const { t, specId } = await activated();
    const reader = await roleToken(t.auth, ["entity:read"]);
    expect(expectError(await call("GET", `/apps/${specId}/preview`, { auth: reader.auth }), 403, "FORBIDDEN").details).toMatchObject({
      resource: "app",
      action: "read",
    });
    const appReader = await roleToken(t.auth, ["app:read"]);
    expect((await call("GET", `/apps/${specId}/preview`, { auth: appReader.auth })).status).toBe(200);
    expectError(await call("GET", `/apps/${crypto.randomUUID()}/preview`, { auth: t.auth }), 404, "NOT_FOUND");
    const stranger = await createTenant();
    expectError(await call("GET", `/apps/${specId}/preview`, { auth: stranger.auth }), 404, "NOT_FOUND");
    const unactivated = await insertSpec(t, [spec]);
    expectError(await call("GET", `/apps/${unactivated.id}/preview`, { auth: t.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", `/apps/not-a-uuid/preview`, { auth: t.auth }), 422, "VALIDATION_FAILED");
  });
});

describe("POST /apps/{specId}/preview takes JSON from the service's own origin only", () => {
  const action = JSON.stringify({ action: { widgetId: "open", handler: "click" } });

  it("refuses what a page of another site can make a browser send with its cached Basic credentials, before anything runs", async () => {
    const { t, specId } = await activated();
    const post = (headers: Record<string, string>, rawBody?: string) => call("POST", `/apps/${specId}/preview`, { auth: t.auth, headers, rawBody });
    for (const type of [
      "text/plain",
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonp",
      "application/json-seq",
    ]) {
      const refused = expectError(await post({ "Content-Type": type }, action), 415, "UNSUPPORTED_MEDIA_TYPE");
      expect(refused.details.content_type).toBe(type);
    }
    // A body without any Content-Type is no JSON either.
    expectError(await call("POST", `/apps/${specId}/preview`, { auth: t.auth, rawBody: new TextEncoder().encode(action) }), 415, "UNSUPPORTED_MEDIA_TYPE");
    for (const origin of ["https://evil.example", "null", "http://platform.test:8080", "https://platform.test"]) {
      const refused = expectError(await post({ "Content-Type": "application/json", Origin: origin }, action), 403, "FORBIDDEN");
      expect(refused.details).toMatchObject({ origin });
      // The refusal comes first: a cross-site form's body is never read as a type the route does not take.
      expectError(await post({ "Content-Type": "text/plain", Origin: origin }, action), 403, "FORBIDDEN");
    }
    // Without credentials the refusal is the same: nothing about the spec is looked at.
    expectError(
      await call("POST", `/apps/${specId}/preview`, { headers: { "Content-Type": "text/plain", Origin: "https://evil.example" }, rawBody: action }),
      403,
      "FORBIDDEN",
    );
  });

  it("answers JSON from the service's origin, from PUBLIC_URL's, from a server without Origin, and a post without a body", async () => {
    const { t, specId } = await activated();
    const publicOrigin = new URL(env.PUBLIC_URL).origin;
    for (const headers of <Record<string, string>[]>[
      { "Content-Type": "application/json", Origin: "http://platform.test" },
      { "Content-Type": "application/json; charset=utf-8", Origin: publicOrigin },
      { "Content-Type": "Application/JSON" },
    ]) {
      const res = await call("POST", `/apps/${specId}/preview`, { auth: t.auth, headers, rawBody: action });
      expect(res.status, `${JSON.stringify(headers)} ${res.text}`).toBe(200);
      expect(res.json.data.state.page).toBe("home");
    }
    expect((await call("POST", `/apps/${specId}/preview`, { auth: t.auth, headers: { Origin: "http://platform.test" } })).status).toBe(200);
  });
});
