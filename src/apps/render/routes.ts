// POST /apps/run/{integrationId}: what every app host calls to show its
// user the app (docs/apps.md, "Rendering for a host"). The credential is
// checked before the body is read (the renderHost strategy); the app user
// then gets its own rate-limit budget per integration.
import { enforce } from "../../gateway/rate-limit";
import { route } from "../../gateway/route";
import { base64url, randomBytes } from "../../lib/crypto";
import { dataEnvelope, uuidSchema } from "../../lib/schemas";
import { previewedSpec, previewForAuthor, renderForHost, type PreviewBody } from "./answer";
import { identifyRenderUser, renderHost, StaleIdentity, verifyRenderCredential, type VerifiedRender } from "./identity";
import { previewOutline, previewPage, previewPageHeaders, sdkSources } from "./preview-page";
import { previewBody, renderAnswer, renderBody } from "./schemas";

export const renderRoutes = [
  route({
    operation: "renderApp",
    method: "post",
    path: "/apps/run/:integrationId",
    tag: "apps",
    summary: "Render the integration's app for the host's user: every placement of the dashboard, its state, the rows of its widgets and its notifications",
    auth: renderHost("integrationId"),
    // Its reads go over HTTP (waves.ts); a command's write, when one comes, opens the WebSocket then.
    overHttp: true,
    params: { integrationId: uuidSchema },
    body: renderBody,
    responses: {
      200: { description: "The screens to show", schema: dataEnvelope(renderAnswer) },
      401: { description: "No valid credential for this integration (app token or identity token), or no user in the request" },
      403: {
        description:
          "A disabled integration, an inactive company or user (details.code EXTERNAL_USER_INACTIVE), another company, an unlisted Origin, or an unknown user without autoCreateUsers",
      },
      422: { description: "A body that is not a JSON object, or an action naming no widget and handler on the current page or top modal" },
    },
    handler: async (c, { params, body, auth }) => {
      const headers = c.req.raw.headers;
      const request = { headers, query: new URL(c.req.url).searchParams, body };
      const base = c.var.ctx;
      let limited = false;
      const attempt = async (verified: VerifiedRender) => {
        const identity = await identifyRenderUser(base, verified, request);
        c.set("ctx", base.forTenant(identity.tenantId, identity.principal));
        // Spent once, whichever attempt answers.
        if (!limited) await enforce(c, "identity", identity.principal.identity, c.var.ctx.config.rateLimitIdentity);
        limited = true;
        return renderForHost(c.var.ctx, c.env, identity, verified.target, body);
      };
      // An identity from the isolate's cache that its guard found stale: nothing of that attempt counted, so it starts again from the lookups.
      const answer = await attempt(auth).catch(async (e: unknown) => {
        if (!(e instanceof StaleIdentity)) throw e;
        return attempt(await verifyRenderCredential(base, params.integrationId, headers, false));
      });
      // The credential's check found any Origin listed, so the grant is known here without asking hostCors to look it up.
      const origin = headers.get("Origin");
      return c.json({ data: answer }, 200, origin ? { "Access-Control-Allow-Origin": origin } : {});
    },
  }),
  route({
    operation: "previewApp",
    method: "post",
    path: "/apps/:specId/preview",
    tag: "apps",
    summary: "Render the activation's spec (or a document or kept version given) for the caller, as a host's user would see it: no integration, nothing saved",
    permission: ["app", "read"],
    // It runs the spec's actions as the caller: a page of another site must not make a browser post it.
    jsonFromOwnOrigin: true,
    params: { specId: uuidSchema },
    body: previewBody,
    bodyOptional: true,
    responses: {
      200: { description: "The screens, as a render answers them", schema: dataEnvelope(renderAnswer) },
      403: { description: "Without app:read on the activation, or an Origin other than the service's own" },
      415: { description: "A body or Content-Type other than application/json" },
      404: { description: "Unknown spec, or not activated in this tenant" },
      422: {
        description:
          "A spec_document the publish checks refuse, an unknown spec_version, or an action naming no widget and handler on the current page or top modal",
      },
    },
    handler: async (c, { params, body }) => c.json({ data: await previewForAuthor(c.var.ctx, c.env, params.specId, (body ?? {}) as PreviewBody) }),
  }),
  route({
    operation: "previewAppPage",
    method: "get",
    path: "/apps/:specId/preview",
    tag: "apps",
    summary:
      "An HTML page for a browser that draws the activation's spec with the host SDK through POST /apps/{specId}/preview, beside a panel of its notifications (with details), state and referenceData",
    permission: ["app", "read"],
    params: { specId: uuidSchema },
    responses: {
      200: {
        description:
          "text/html: a page (inline style and module script under a Content-Security-Policy nonce, importing the SDK from GET /apps/host/v1.js on the same origin) that posts to POST /apps/{specId}/preview with the browser's credentials",
        contentType: "text/html",
        schema: { type: "string" },
      },
      401: { description: 'No valid credential: WWW-Authenticate offers Basic (realm="platform"), so a browser asks for the PAT\'s client id and secret' },
      403: { description: "Without app:read on the activation" },
      404: { description: "Unknown spec, or not activated in this tenant" },
    },
    handler: async (c, { params }) => {
      const outline = previewOutline(await previewedSpec(c.var.ctx, params.specId));
      const nonce = base64url(randomBytes(18));
      return new Response(previewPage(params.specId, nonce, outline), {
        status: 200,
        headers: previewPageHeaders(nonce, sdkSources(c.req.url, c.env.PUBLIC_URL)),
      });
    },
  }),
];
