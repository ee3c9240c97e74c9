// Temp files (docs/api.md, Temp files): bytes with no owning entity that live 24
// hours. createTempFile is the one way to make one: POST /entity/temp-files,
// the workflow action uploadTempFile and app uploads (apps/uploads).
import type { Database, TenantDb } from "../../db/client";
import { notFound } from "../../lib/errors";
import { validate } from "../../lib/validate";
import { expiresIn, signLink, type Link } from "../../gateway/capability";
import { tempFileStorageKey, type FileStore, type Upload } from "../../lib/files/object-store";
import { recordedFileName } from "../../lib/files/names";
import { contentTypeSchema, fileNameSchema } from "../../lib/files/schemas";
import type { Clock } from "../../lib/clock";
import { LINK_TTL } from "./schemas";

/** How long a temp file lives; its download links last LINK_TTL seconds (schemas.ts). */
export const TEMP_FILE_LIFETIME_HOURS = 24;

export interface TempFileDeps {
  tenant: TenantDb;
  files: FileStore;
}

interface TempFileRow {
  id: string;
  name: string;
  content_type: string;
  size: number;
  storage_key: string;
  expires_at: string;
}

const COLUMNS = "id, name, content_type, size, storage_key, expires_at";

function present(r: TempFileRow) {
  return { id: r.id, name: r.name, content_type: r.content_type, size: r.size, expires_at: r.expires_at };
}

export type TempFileView = ReturnType<typeof present>;

const metadataSchema = {
  type: "object",
  required: ["name", "content_type"],
  properties: { name: fileNameSchema, content_type: contentTypeSchema },
} as const;

export interface NewTempFile {
  /** The id to create it under (an app upload's slot id); a fresh one by default. */
  id?: string;
  name: string;
  contentType: string;
  upload: Upload;
}

/**
 * Stores the bytes (encrypted, streaming; at most 25 MiB, else 413) and
 * records the file, its name without format characters. The object is written first under a fresh id, so a
 * failure part-way leaves no row that points at missing bytes.
 */
export async function createTempFile(deps: TempFileDeps, input: NewTempFile): Promise<TempFileView> {
  const name = recordedFileName(input.name);
  validate(metadataSchema, { name, content_type: input.contentType }, "Temp file name or content type is invalid");
  const tenantId = deps.tenant.tenantId;
  const id = input.id ?? crypto.randomUUID();
  const storageKey = tempFileStorageKey(tenantId, id);
  const { size } = await deps.files.put(tenantId, storageKey, input.upload);
  try {
    const row = await deps.tenant.tx(async (sql) => {
      const { rows } = await sql.query<TempFileRow & Record<string, unknown>>(
        `INSERT INTO temp_files (id, tenant_id, name, content_type, size, storage_key, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(hours => $7)) RETURNING ${COLUMNS}`,
        [id, tenantId, name, input.contentType, size, storageKey, TEMP_FILE_LIFETIME_HOURS],
      );
      return rows[0];
    });
    return present(row);
  } catch (e) {
    await deps.files.delete([storageKey]);
    throw e;
  }
}

/** A live temp file; one past its expiry is gone even before the cron tick removes it. */
async function liveTempFile(tenant: TenantDb, id: string): Promise<TempFileRow> {
  const row = await tenant.tx(
    async (sql) =>
      (await sql.query<TempFileRow & Record<string, unknown>>(`SELECT ${COLUMNS} FROM temp_files WHERE id = $1 AND expires_at > now()`, [id])).rows[0],
  );
  if (!row) throw notFound("Temp file", id);
  return row;
}

export async function readTempFile(deps: TempFileDeps, id: string): Promise<{ file: TempFileView; body: ReadableStream<Uint8Array> }> {
  const row = await liveTempFile(deps.tenant, id);
  const body = await deps.files.get(deps.tenant.tenantId, row.storage_key, row.size);
  if (!body) throw notFound("Temp file", id);
  return { file: present(row), body };
}

/** A download link valid for `ttl` seconds, shortened to the file's remaining life. */
export async function tempFileDownloadUrl(
  deps: { tenant: TenantDb; secret: string; origin: string; clock: Clock },
  id: string,
  ttl: number = LINK_TTL.default,
): Promise<Link> {
  const row = await liveTempFile(deps.tenant, id);
  const expires = Math.min(expiresIn(ttl, deps.clock.now()), Math.floor(Date.parse(row.expires_at) / 1000));
  return signLink(deps.secret, "temp-file-download", deps.tenant.tenantId, id, deps.origin, `/entity/temp-files/${id}/download`, expires);
}

/** Removes the tenant's temp files by id, bytes first as the sweep does: what an action made before it failed. */
export async function removeTempFiles(deps: TempFileDeps, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await deps.files.delete(ids.map((id) => tempFileStorageKey(deps.tenant.tenantId, id)));
  await deps.tenant.tx((sql) => sql.query("DELETE FROM temp_files WHERE id = ANY($1::uuid[])", [ids]));
}

const SWEEP_BATCH = 1000;
const SWEEP_ROUNDS = 10;

/**
 * Cron: removes expired temp files of every tenant, bytes first, so a failure
 * in between leaves rows (already invisible) that the next tick finishes.
 */
export async function sweepExpiredTempFiles(database: Database, files: FileStore, now: Date): Promise<number> {
  let removed = 0;
  for (let round = 0; round < SWEEP_ROUNDS; round++) {
    const { rows } = await database.system((sql) =>
      sql.query<{ id: string; storage_key: string }>("SELECT id, storage_key FROM temp_files WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2", [
        now.toISOString(),
        SWEEP_BATCH,
      ]),
    );
    if (!rows.length) break;
    await files.delete(rows.map((r) => r.storage_key));
    await database.system((sql) => sql.query("DELETE FROM temp_files WHERE id = ANY($1::uuid[])", [rows.map((r) => r.id)]));
    removed += rows.length;
    if (rows.length < SWEEP_BATCH) break;
  }
  return removed;
}
