// App upload slots (docs/apps.md, Uploads): a render's
// `createTempFileUploadUrl` step mints them, one row and one signed link per
// slot; POST /apps/upload/{integrationId}/{uploadId} (./receive.ts) fills one
// with one file, which becomes the temp file of the slot's id; a form's
// preview reads it back as a download link.
import type { Database, Sql, TenantDb } from "../../db/client";
import { tenantDb } from "../../db/client";
import { isoTimestamp } from "../../lib/timestamps";
import { ACCEPT_EXTENSION, ACCEPT_MIME, MAX_UPLOAD_BYTES, UPLOAD_TTL, UPLOAD_TYPES, type SpecDocument } from "../../definition/language/spec-schema";
import { TEMP_FILE_LIFETIME_HOURS, tempFileDownloadUrl } from "../../entity/temp-files/service";
import type { Clock } from "../../lib/clock";
import { ApiError } from "../../lib/errors";
import { expiresIn, signLink } from "../../gateway/capability";
import { isUuid } from "../../lib/ids";
import { checkAll } from "../../lib/validate";
import { slotsSchema } from "./schemas";

/** Slot rows stay this long past their expiry, so a preview can still tell an expired upload from none. */
const SLOT_RETENTION_DAYS = 7;

export interface SlotDeps {
  tenant: TenantDb;
  /** MASTER_KEY, which signs the links. */
  secret: string;
  clock: Clock;
}

/** The app user a render resolved, as a slot records it (a render's identity is one). */
export interface SlotOwner {
  /** None for an author's preview, which mints no slots. */
  integrationId?: string;
  activationId: string;
  userId: string;
  /** The key of the spec's `providers` the user came through. */
  provider: string;
  identity: Record<string, unknown>;
}

export interface MintRequest {
  identity: SlotOwner;
  /** The service's public origin the links point at. */
  origin: string;
  /** The step's `slots`, resolved. */
  slots: unknown;
  type?: unknown;
  ttl?: unknown;
  /** The spec document the render uses: its provider declares the upload types. */
  spec: SpecDocument;
}

export interface MintedSlot {
  uploadUrl: string;
  uploadId: string;
  expiresAt: string;
}

interface SlotInput {
  name: string;
  maxFileSize?: number;
  accept?: string[];
}

function refused(message: string, errors: string[]): ApiError {
  return new ApiError("UNPROCESSABLE_ENTITY", message, { errors, validation_errors: errors });
}

function ttlOf(ttl: unknown): number {
  if (ttl === undefined) return UPLOAD_TTL.default;
  if (!Number.isInteger(ttl) || (ttl as number) < 1 || (ttl as number) > UPLOAD_TTL.max) {
    throw refused(`An upload link's ttl is a whole number of seconds from 1 to ${UPLOAD_TTL.max}`, [
      `ttl: must be an integer from 1 to ${UPLOAD_TTL.max}, got ${JSON.stringify(ttl)}`,
    ]);
  }
  return ttl as number;
}

function slotsOf(slots: unknown): SlotInput[] {
  const errors = checkAll(slotsSchema, slots, "slots");
  if (!errors.length) {
    const seen = new Set<string>();
    (slots as SlotInput[]).forEach((slot, i) => {
      if (seen.has(slot.name)) errors.push(`slots[${i}].name: ${JSON.stringify(slot.name)} names an earlier slot too; slot names are unique`);
      seen.add(slot.name);
      slot.accept?.forEach((entry, j) => {
        if (!ACCEPT_EXTENSION.test(entry) && !ACCEPT_MIME.test(entry))
          errors.push(`slots[${i}].accept[${j}]: ${JSON.stringify(entry)} is neither an extension (.pdf) nor a MIME type (application/pdf, image/*)`);
      });
    });
  }
  if (errors.length) throw refused("The upload slots are not valid", errors);
  return slots as SlotInput[];
}

/** The upload types `providers.<provider>.upload` declares: a type name, or a record keyed by type. */
export function declaredUploadTypes(spec: SpecDocument, provider: string): string[] {
  const upload = spec.providers?.[provider]?.upload;
  if (typeof upload === "string") return [upload];
  return upload && typeof upload === "object" ? Object.keys(upload) : [];
}

function uploadTypeOf(spec: SpecDocument, provider: string, type: unknown): string {
  const declared = declaredUploadTypes(spec, provider);
  if (type === undefined) {
    if (declared.length === 1) return declared[0];
    const why = declared.length
      ? `declares several upload types (${declared.join(", ")}): name one with type`
      : "declares no upload type (providers.<name>.upload)";
    throw refused(`Provider ${provider} ${why}`, [`type: provider ${provider} ${why}`]);
  }
  if (typeof type !== "string" || !declared.includes(type)) {
    const known = (UPLOAD_TYPES as readonly unknown[]).includes(type) ? "is not declared by" : "is not an upload type of";
    throw refused(`Upload type ${JSON.stringify(type)} ${known} provider ${provider}`, [
      `type: ${JSON.stringify(type)} ${known} provider ${provider} (declared: ${declared.join(", ") || "none"})`,
    ]);
  }
  return type;
}

/**
 * The slots of one `createTempFileUploadUrl` step, stored in one statement
 * for the render's app user and integration, each with its signed link
 * (`POST /apps/upload/{integrationId}/{uploadId}`) valid for `ttl` seconds
 * (default 1800, at most 7200). A slot's `maxFileSize` is clamped to 25 MiB.
 * 422 for anything it cannot mint: an author's preview (no integration),
 * invalid slots or ttl, or a type the provider does not declare.
 */
export async function mintUploadSlots(deps: SlotDeps, request: MintRequest): Promise<Record<string, MintedSlot>> {
  const { identity } = request;
  const integrationId = identity.integrationId;
  if (integrationId === undefined) {
    throw new ApiError("UNPROCESSABLE_ENTITY", "uploads need an integration: an author's preview has none, so it mints no upload links");
  }
  const ttl = ttlOf(request.ttl);
  const slots = slotsOf(request.slots);
  const type = uploadTypeOf(request.spec, identity.provider, request.type);
  const expires = expiresIn(ttl, deps.clock.now());
  const rows = slots.map((slot) => ({
    id: crypto.randomUUID(),
    name: slot.name,
    max_file_size: Math.min(slot.maxFileSize ?? MAX_UPLOAD_BYTES, MAX_UPLOAD_BYTES),
    accept: slot.accept ?? [],
  }));
  if (rows.length) {
    await deps.tenant.tx((sql) =>
      sql.query(
        `INSERT INTO app_upload_slots (id, tenant_id, integration_id, activation_id, user_id, provider, type, name, max_file_size, accept, identity, expires_at)
         SELECT s.id, $1, $2, $3, $4, $5, $6, s.name, s.max_file_size, s.accept, $7, $8
           FROM jsonb_to_recordset($9::jsonb) AS s(id uuid, name text, max_file_size integer, accept jsonb)`,
        [
          deps.tenant.tenantId,
          integrationId,
          identity.activationId,
          identity.userId,
          identity.provider,
          type,
          JSON.stringify(identity.identity),
          isoTimestamp(expires * 1000),
          JSON.stringify(rows),
        ],
      ),
    );
  }
  const minted: Record<string, MintedSlot> = {};
  for (const row of rows) {
    const link = await signLink(deps.secret, "app-upload", deps.tenant.tenantId, row.id, request.origin, `/apps/upload/${integrationId}/${row.id}`, expires);
    minted[row.name] = { uploadUrl: link.url, uploadId: row.id, expiresAt: link.expires_at };
  }
  return minted;
}

export interface SlotRow {
  id: string;
  integration_id: string;
  activation_id: string;
  spec_id: string;
  user_id: string;
  provider: string;
  type: string;
  name: string;
  max_file_size: number;
  accept: string[];
  identity: Record<string, unknown>;
  expires_at: string;
  claimed_at: string | null;
  company_external_id: string;
}

/** A slot with what its upload needs beside it: the activation's spec and the integration's company. */
export async function slotRow(sql: Sql, id: string): Promise<SlotRow | undefined> {
  const { rows } = await sql.query<SlotRow & Record<string, unknown>>(
    `SELECT s.id, s.integration_id, s.activation_id, a.spec_id, s.user_id, s.provider, s.type, s.name, s.max_file_size, s.accept, s.identity,
            s.expires_at, s.claimed_at, c.external_id AS company_external_id
       FROM app_upload_slots s
       JOIN app_activations a ON a.id = s.activation_id
       JOIN app_integrations i ON i.id = s.integration_id
       JOIN external_companies c ON c.id = i.external_company_id
      WHERE s.id = $1`,
    [id],
  );
  return rows[0];
}

export interface UploadPreviewDeps {
  database: Database;
  secret: string;
  /** Where the download link points: the service's public origin. */
  origin: string;
  clock: Clock;
}

/**
 * What a form's file field previews: a download link to the temp file the
 * slot `tempFileId` received, its name and type. Only the app user and
 * integration the slot was minted for see it (another's id reads as nothing
 * uploaded). 404 "Nothing uploaded" for an unknown id or a slot that has
 * no file yet; 410 "expired" once the file is gone.
 */
export async function uploadPreview(
  deps: UploadPreviewDeps,
  tenantId: string,
  tempFileId: string,
  owner: { integrationId?: string; userId: string },
): Promise<{ url: string; name: string; contentType: string }> {
  const tenant = tenantDb(deps.database, tenantId);
  const nothing = () => new ApiError("NOT_FOUND", "Nothing uploaded: pick a file first", { upload_id: tempFileId });
  if (owner.integrationId === undefined || !isUuid(tempFileId)) throw nothing();
  // A claimed slot without its file is an upload under way, or one whose file the sweep has removed.
  const { rows } = await tenant.tx((sql) =>
    sql.query<{ state: "none" | "expired" | "live"; name: string | null; content_type: string | null }>(
      `SELECT CASE WHEN s.claimed_at IS NULL THEN 'none'
                   WHEN t.id IS NULL THEN CASE WHEN s.claimed_at <= $4::timestamptz - make_interval(hours => $5) THEN 'expired' ELSE 'none' END
                   WHEN t.expires_at <= $4::timestamptz THEN 'expired'
                   ELSE 'live' END AS state,
              t.name, t.content_type
         FROM app_upload_slots s LEFT JOIN temp_files t ON t.id = s.id
        WHERE s.id = $1 AND s.integration_id = $2 AND s.user_id = $3`,
      [tempFileId, owner.integrationId, owner.userId, isoTimestamp(deps.clock.now()), TEMP_FILE_LIFETIME_HOURS],
    ),
  );
  const row = rows[0];
  if (!row || row.state === "none") throw nothing();
  if (row.state === "expired") throw new ApiError("GONE", "The upload has expired: upload the file again", { upload_id: tempFileId });
  const link = await tempFileDownloadUrl({ tenant, secret: deps.secret, origin: deps.origin, clock: deps.clock }, tempFileId);
  return { url: link.url, name: row.name!, contentType: row.content_type! };
}

/** Cron: removes slots a week past their expiry (their files, if any, are long gone). */
export async function sweepUploadSlots(database: Database, now: Date): Promise<void> {
  await database.system((sql) =>
    sql.query(`DELETE FROM app_upload_slots WHERE expires_at < $1::timestamptz - make_interval(days => $2)`, [now.toISOString(), SLOT_RETENTION_DAYS]),
  );
}
