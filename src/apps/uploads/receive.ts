// POST /apps/upload/{integrationId}/{uploadId}?<link> (docs/apps.md,
// Uploads): a provider's upload widget posts the file its user picked to a
// slot's link. No credentials: the signed link names the tenant and the
// slot. The answer is the provider's (its upload body, its error body),
// never the error envelope, whatever fails, the gateway's body limit and
// rate limit included (`uploadErrorAnswer`).
//
// The slot is claimed before a byte is stored, so a second upload to it is
// 409 and cannot touch the first one's file. An upload that fails after the
// claim (over the slot's size, a body cut off, a store failure) removes
// whatever it wrote and gives the slot back, so the user can try again.
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { tenantDb, type TenantDb } from "../../db/client";
import { isoTimestamp } from "../../lib/timestamps";
import type { HonoEnv } from "../../gateway/env";
import { createTempFile } from "../../entity/temp-files/service";
import type { RequestContext } from "../../gateway/request-context";
import { ApiError } from "../../lib/errors";
import { verifyLink, type CapabilityParams } from "../../gateway/capability";
import { filePart, multipartBoundary } from "../../lib/files/multipart";
import { recordedFileName } from "../../lib/files/names";
import { MAX_FILE_BYTES, tempFileStorageKey } from "../../lib/files/object-store";
import { contentTypeSchema } from "../../lib/files/schemas";
import { isUuid } from "../../lib/ids";
import type { AuthStrategy } from "../../gateway/route-auth";
import { resolveSmartValue } from "../../lib/smart-values";
import { loadInstance, type AppInstance } from "../activation";
import { ownerConfig } from "../config/owner";
import type { SpecDeps, SpecDocument } from "../spec";
import { slotRow, type SlotRow } from "./slots";

/** The body may carry this much beside the file: its multipart boundaries, part headers and any small fields. */
const FRAMING_BYTES = 64 * 1024;
/** What the gateway lets through to this route. */
export const UPLOAD_BODY_LIMIT = MAX_FILE_BYTES + FRAMING_BYTES;

const OCTET_STREAM = "application/octet-stream";
const CONTENT_TYPE = new RegExp(contentTypeSchema.pattern);
const PATH = /^\/apps\/upload\/([^/]+)\/([^/]+)$/;

/**
 * The signed link of the slot the path names: 403 when it is missing,
 * malformed or tampered with; 410 when it has expired.
 */
export const uploadLink: AuthStrategy<{ tenantId: string }> = {
  scheme: "capability",
  authenticate: async (c, { params, query }) => {
    const tenantId = await linkTenant(c.var.ctx, params.uploadId, query as CapabilityParams, true);
    c.set("ctx", c.var.ctx.forTenant(tenantId));
    return { tenantId };
  },
};

/**
 * The tenant a link for `uploadId` was issued in. An expired link is 410,
 * or (`refuseExpired` false, for the error answer) still names its tenant:
 * its signature was checked before its expiry.
 */
async function linkTenant(ctx: RequestContext, uploadId: string, params: CapabilityParams, refuseExpired: boolean): Promise<string> {
  try {
    return await verifyLink(ctx.secret, "app-upload", uploadId, params, ctx.clock.now());
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    if (e.details.code !== "LINK_EXPIRED")
      throw new ApiError("FORBIDDEN", `This upload link is not valid: ${e.message.replace(/^The link/, "the link")}`, { reason: e.details.code });
    if (refuseExpired) throw new ApiError("GONE", "This upload link has expired: ask for a new one", { expired_at: e.details.expired_at });
    return params.tenant!;
  }
}

type UploadDeclaration = { props?: unknown; errorProps?: unknown };

/** A slot with its provider's upload declaration: how its answers are shaped. */
class UploadSite {
  private constructor(
    readonly slot: SlotRow,
    private readonly deps: SpecDeps,
    private readonly instance: AppInstance,
    private readonly spec: SpecDocument,
  ) {}

  static async load(ctx: RequestContext, tenant: TenantDb, slot: SlotRow): Promise<UploadSite> {
    const deps: SpecDeps = { tenant, ownerTenant: (id) => (id === tenant.tenantId ? tenant : tenantDb(ctx.database, id)) };
    const instance = await loadInstance(deps, slot.spec_id, null);
    return new UploadSite(slot, deps, instance, await instance.spec.document(instance.version));
  }

  private declaration(): UploadDeclaration | undefined {
    const upload = this.spec.providers?.[this.slot.provider]?.upload;
    if (typeof upload !== "object" || upload === null) return undefined;
    const entry = (upload as Record<string, unknown>)[this.slot.type];
    return typeof entry === "object" && entry !== null ? (entry as UploadDeclaration) : undefined;
  }

  /**
   * The provider's `props` or `errorProps` resolved against `root` plus
   * `provider` and `config` (the config scopes a render of the slot's user
   * sees); `fallback` without an override, or when it fails to resolve.
   */
  async body(kind: "props" | "errorProps", root: Record<string, unknown>, fallback: unknown): Promise<unknown> {
    const override = this.declaration()?.[kind];
    if (override === undefined) return fallback;
    const { slot } = this;
    try {
      const config = await ownerConfig(this.deps, this.instance, this.spec, {
        integrationId: slot.integration_id,
        companyExternalId: slot.company_external_id,
        provider: slot.provider,
        userId: slot.user_id,
        identity: slot.identity,
      });
      const value = await resolveSmartValue(
        override,
        { ...root, provider: { provider: slot.provider, identity: slot.identity }, config },
        { functions: this.spec.functions },
      );
      return value === undefined ? fallback : value;
    } catch {
      return fallback;
    }
  }
}

/** Every answer is the one upload's: never cached (CORS for a browser widget is the gateway's, apps/host/cors.ts hostCors). */
const ANSWER_HEADERS = { "Cache-Control": "no-store" };

/**
 * The last segment of the path a client may send (`C:\fakepath\a.pdf`,
 * `dir/a.pdf`), without control characters (NUL among them) or format
 * characters, at most 255 characters; `upload` when nothing is left.
 */
export function uploadFileName(sent: string): string {
  const base = sent.split(/[\\/]/).pop() ?? "";
  const clean = [...recordedFileName(base.replace(/[\u0000-\u001f\u007f]/g, "")).trim()].slice(0, 255).join("");
  return clean || "upload";
}

/** Whether a file passes a slot's `accept`: an extension its name ends with, or its MIME type (`image/*` a whole family). Empty takes anything. */
export function acceptsFile(accept: string[], name: string, contentType: string): boolean {
  if (!accept.length) return true;
  const lowerName = name.toLowerCase();
  const mime = contentType.split(";")[0].trim().toLowerCase();
  return accept.some((entry) => {
    const e = entry.toLowerCase();
    if (e.startsWith(".")) return lowerName.endsWith(e);
    return e.endsWith("/*") ? mime.startsWith(e.slice(0, -1)) : mime === e;
  });
}

/** Refuses the file's bytes past the slot's `maxFileSize`. */
function capped(limit: number): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  return new TransformStream({
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size > limit) throw new ApiError("PAYLOAD_TOO_LARGE", `The file is larger than this upload takes (${limit} bytes)`, { limit });
      controller.enqueue(chunk);
    },
  });
}

/** Claims the slot for this upload; 409 once used, 410 once expired. */
async function claim(tenant: TenantDb, slotId: string, now: string): Promise<void> {
  const outcome = await tenant.tx(async (sql) => {
    const { rows } = await sql.query<{ id: string }>(
      `UPDATE app_upload_slots SET claimed_at = $2 WHERE id = $1 AND claimed_at IS NULL AND expires_at > $2 RETURNING id`,
      [slotId, now],
    );
    if (rows.length) return "claimed";
    const { rows: state } = await sql.query<{ expired: boolean }>(`SELECT expires_at <= $2 AS expired FROM app_upload_slots WHERE id = $1`, [slotId, now]);
    return state[0]?.expired === false ? "used" : "expired";
  });
  if (outcome === "used") throw new ApiError("CONFLICT", "This upload slot has already been used");
  if (outcome === "expired") throw new ApiError("GONE", "This upload link has expired: ask for a new one");
}

/** The slot the link names, checked against the path: 410 gone or expired, 403 another integration's, 409 used. */
async function openSlot(ctx: RequestContext, integrationId: string, uploadId: string): Promise<SlotRow> {
  const slot = await ctx.tenant.tx((sql) => slotRow(sql, uploadId));
  if (!slot) throw new ApiError("GONE", "This upload slot has expired or is gone");
  if (slot.integration_id !== integrationId) throw new ApiError("FORBIDDEN", "This upload link belongs to another integration");
  if (Date.parse(slot.expires_at) <= ctx.clock.now()) throw new ApiError("GONE", "This upload link has expired: ask for a new one");
  if (slot.claimed_at !== null) throw new ApiError("CONFLICT", "This upload slot has already been used");
  return slot;
}

export async function receiveUpload(c: Context<HonoEnv>, params: { integrationId: string; uploadId: string }): Promise<Response> {
  const ctx = c.var.ctx;
  const slot = await openSlot(ctx, params.integrationId, params.uploadId);
  const boundary = multipartBoundary(c.req.header("Content-Type"));
  if (!boundary) throw new ApiError("BAD_REQUEST", "An upload is multipart/form-data with a boundary and one `file` part");
  const part = await filePart(c.req.raw.body ?? new ReadableStream(), boundary, "file");
  const name = uploadFileName(part.filename);
  const contentType = part.contentType && part.contentType.length <= 255 && CONTENT_TYPE.test(part.contentType) ? part.contentType : OCTET_STREAM;
  if (!acceptsFile(slot.accept, name, contentType)) {
    await part.body.cancel();
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE", `This upload takes only ${slot.accept.join(", ")}; ${name} (${contentType}) is neither`, {
      accept: slot.accept,
    });
  }
  try {
    await claim(ctx.tenant, slot.id, isoTimestamp(ctx.clock.now()));
  } catch (e) {
    await part.body.cancel();
    throw e;
  }
  const file = await createTempFile(ctx, { id: slot.id, name, contentType, upload: { body: part.body.pipeThrough(capped(slot.max_file_size)) } }).catch(
    async (e) => {
      // The failure is what the uploader is told; a cleanup that fails too is only logged.
      const cleanupFailed = (err: unknown) => ctx.log.error("upload cleanup failed", { upload_id: slot.id, error: (err as Error).message });
      await ctx.files.delete([tempFileStorageKey(ctx.tenant.tenantId, slot.id)]).catch(cleanupFailed);
      await ctx.tenant.tx((sql) => sql.query(`UPDATE app_upload_slots SET claimed_at = NULL WHERE id = $1`, [slot.id])).catch(cleanupFailed);
      throw e;
    },
  );
  // The file is stored: whatever shaping the answer meets, the upload has succeeded.
  const fallback = { uploadId: file.id };
  const upload = { id: file.id, filename: file.name, contentType: file.content_type, size: file.size, expiresAt: file.expires_at };
  const site = await UploadSite.load(ctx, ctx.tenant, slot).catch(
    (e) => void ctx.log.error("upload answer falls back", { upload_id: slot.id, error: (e as Error).message }),
  );
  const body = site ? await site.body("props", { upload }, fallback) : fallback;
  return c.json(body as object, 200, ANSWER_HEADERS);
}

/**
 * Any failure of a request to the upload route, in the provider's error
 * body when the link names a slot (its signature checked; an expired link
 * still names one), else the default `{ errorMessage }`, with the error's status.
 */
export async function uploadErrorAnswer(c: Context<HonoEnv>, error: ApiError): Promise<Response> {
  const fallback = { errorMessage: error.message };
  const site = await siteOf(c).catch(() => undefined);
  const body = site ? await site.body("errorProps", { error: { code: error.code, message: error.message, status: error.status } }, fallback) : fallback;
  return c.json(body as object, error.status as ContentfulStatusCode, { ...error.headers, ...ANSWER_HEADERS });
}

/** The slot a request's link names, whatever else about the request failed; undefined when the link proves nothing. */
async function siteOf(c: Context<HonoEnv>): Promise<UploadSite | undefined> {
  const ctx = c.var.ctx;
  const match = PATH.exec(c.req.path);
  if (!ctx || !match || !isUuid(match[2])) return undefined;
  const params = Object.fromEntries(new URL(c.req.url).searchParams) as CapabilityParams;
  const tenantId = await linkTenant(ctx, match[2], params, false);
  const tenant = tenantDb(ctx.database, tenantId);
  const slot = await tenant.tx((sql) => slotRow(sql, match[2]));
  return slot && UploadSite.load(ctx, tenant, slot);
}
