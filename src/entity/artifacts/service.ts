// Entity artifacts (docs/api.md, Artifacts): request an upload URL, PUT the bytes to
// it, confirm. An artifact is one (artifact_type, filename) series on an
// entity; each upload URL opens a new version of it. Artifacts follow their
// entity: every read and write first finds the entity live, so a soft-deleted
// entity's artifacts answer 404, and a merge moves them (entities/merge.ts).
// Writes lock the entity row, which serialises them per entity and against a
// merge moving the artifacts away.
import { refuseShared } from "../entities/service";
import type { EntityAccess } from "../../db/entity-access";
import type { Database, Sql, TenantDb } from "../../db/client";
import { ApiError, notFound } from "../../lib/errors";
import { offsetOf, paginated, type Page } from "../../lib/pagination";
import { expiresIn, signLink, type Link } from "../../gateway/capability";
import { artifactStorageKey, fileTooLarge, MAX_FILE_BYTES, type FileStore, type Upload } from "../../lib/files/object-store";
import type { Clock } from "../../lib/clock";
import type { FromSchema } from "json-schema-to-ts";
import type { uploadUrlBody } from "./schemas";
import { DOWNLOAD_TTL, UPLOAD_TTL } from "./schemas";

export interface ArtifactDeps {
  tenant: TenantDb;
  files: FileStore;
  /** MASTER_KEY, which signs the upload and download links. */
  secret: string;
  /** Where the links point. */
  origin: string;
  /** When the links expire is counted from. */
  clock: Clock;
}

interface ArtifactRow {
  id: string;
  entity_id: string;
  artifact_type: string;
  filename: string;
  created_at: string;
  version_id: string;
  version: number;
  status: "pending" | "confirmed";
  content_type: string;
  size: number | null;
  sha256: string | null;
  storage_key: string | null;
  version_created_at: string;
  confirmed_at: string | null;
}

const COLUMNS = `a.id, a.entity_id, a.artifact_type, a.filename, a.created_at,
  v.id AS version_id, v.version, v.status, v.content_type, v.size, v.sha256, v.storage_key,
  v.created_at AS version_created_at, v.confirmed_at`;

function presentVersion(r: ArtifactRow) {
  return {
    version: r.version,
    status: r.status,
    content_type: r.content_type,
    size: r.size,
    checksum: r.sha256,
    created_at: r.version_created_at,
    confirmed_at: r.confirmed_at,
  };
}

/** The artifact with the fields of one of its versions (the newest confirmed one, unless said otherwise). */
function presentArtifact(r: ArtifactRow, versions?: ArtifactRow[]) {
  return {
    id: r.id,
    entity_id: r.entity_id,
    artifact_type: r.artifact_type,
    filename: r.filename,
    content_type: r.content_type,
    version: r.version,
    status: r.status,
    size: r.size,
    checksum: r.sha256,
    created_at: r.created_at,
    confirmed_at: r.confirmed_at,
    ...(versions ? { versions: versions.map(presentVersion) } : {}),
  };
}

/** The entity the artifact belongs to: reads need read on it, writes (which lock it) update. */
async function requireEntity(access: EntityAccess, sql: Sql, entityId: string, lock: boolean): Promise<void> {
  const { rows } = await sql.query<{ id: string; type_name: string }>(
    `SELECT e.id, t.name AS type_name FROM entities e JOIN entity_types t ON t.id = e.type_id WHERE e.id = $1 AND e.deleted_at IS NULL${lock ? " FOR NO KEY UPDATE OF e" : ""}`,
    [entityId],
  );
  if (!rows.length) throw notFound("Entity", entityId);
  access.requireRow(lock ? "update" : "read", rows[0]);
}

/** A confirmed version to read: the given number, else the newest. */
async function confirmedVersion(access: EntityAccess, sql: Sql, entityId: string, artifactId: string, version: number | undefined): Promise<ArtifactRow> {
  await requireEntity(access, sql, entityId, false);
  const { rows } = await sql.query<ArtifactRow & Record<string, unknown>>(
    `SELECT ${COLUMNS} FROM artifacts a JOIN artifact_versions v ON v.artifact_id = a.id
      WHERE a.id = $1 AND a.entity_id = $2 AND v.status = 'confirmed' AND ($3::int IS NULL OR v.version = $3)
      ORDER BY v.version DESC LIMIT 1`,
    [artifactId, entityId, version ?? null],
  );
  if (!rows[0]) {
    throw version === undefined
      ? new ApiError("NOT_FOUND", `Artifact ${artifactId} not found or has no confirmed version`)
      : new ApiError("NOT_FOUND", `Artifact ${artifactId} has no confirmed version ${version}`);
  }
  return rows[0];
}

export type UploadUrlInput = FromSchema<typeof uploadUrlBody, { keepDefaultedPropertiesOptional: true }>;

/**
 * Opens a new version: of the entity's artifact with this type and filename,
 * or of a new artifact. A version still pending is replaced (and its bytes
 * removed), so an artifact has at most one upload in progress and confirm
 * knows which version it means.
 */
async function openVersion(deps: Pick<ArtifactDeps, "tenant" | "files">, entityId: string, input: Omit<UploadUrlInput, "ttl">): Promise<ArtifactRow> {
  if (input.size !== undefined && input.size > MAX_FILE_BYTES) throw fileTooLarge();
  await refuseShared(deps.tenant, [entityId]);
  const { row, replaced } = await deps.tenant.tx(async (sql) => {
    await requireEntity(deps.tenant.access, sql, entityId, true);
    const existing = await sql.query<{ id: string }>(
      // Locked so the cron sweep cannot remove it (as emptied) while a version is added.
      "SELECT id FROM artifacts WHERE entity_id = $1 AND artifact_type = $2 AND filename = $3 ORDER BY created_at DESC, id DESC LIMIT 1 FOR UPDATE",
      [entityId, input.artifact_type, input.filename],
    );
    const artifactId =
      existing.rows[0]?.id ??
      (
        await sql.query<{ id: string }>("INSERT INTO artifacts (tenant_id, entity_id, artifact_type, filename) VALUES ($1, $2, $3, $4) RETURNING id", [
          deps.tenant.tenantId,
          entityId,
          input.artifact_type,
          input.filename,
        ])
      ).rows[0].id;
    const replaced = await sql.query<{ storage_key: string | null }>(
      "DELETE FROM artifact_versions WHERE artifact_id = $1 AND status = 'pending' RETURNING storage_key",
      [artifactId],
    );
    const { rows } = await sql.query<ArtifactRow & Record<string, unknown>>(
      `WITH v AS (
         INSERT INTO artifact_versions (tenant_id, artifact_id, version, content_type, declared_size)
         SELECT $1, $2, coalesce(max(version), 0) + 1, $3, $4 FROM artifact_versions WHERE artifact_id = $2
         RETURNING *
       )
       SELECT ${COLUMNS} FROM v JOIN artifacts a ON a.id = v.artifact_id`,
      [deps.tenant.tenantId, artifactId, input.content_type, input.size ?? null],
    );
    return { row: rows[0], replaced: replaced.rows.flatMap((r) => (r.storage_key ? [r.storage_key] : [])) };
  });
  await deps.files.delete(replaced);
  return row;
}

/** A new pending version (openVersion) and the signed URL its bytes are PUT to. */
export async function createUploadUrl(deps: ArtifactDeps, entityId: string, input: UploadUrlInput) {
  const row = await openVersion(deps, entityId, input);
  const link = await signLink(
    deps.secret,
    "artifact-upload",
    deps.tenant.tenantId,
    row.version_id,
    deps.origin,
    `/entity/uploads/${row.version_id}`,
    expiresIn(input.ttl ?? UPLOAD_TTL.default, deps.clock.now()),
  );
  return { artifact: presentArtifact(row), upload_url: link.url, expires_at: link.expires_at };
}

function sizeMismatch(declared: number, actual: number) {
  return new ApiError({ code: "SIZE_MISMATCH", declared_size: declared, size: actual }, `The upload URL was requested for ${declared} bytes, got ${actual}`);
}

const alreadyConfirmed = () => new ApiError({ code: "ALREADY_CONFIRMED" }, "This version is already confirmed; request a new upload URL to change the file");

const uploadGone = (versionId: string) =>
  new ApiError("NOT_FOUND", `Upload ${versionId} not found (replaced by a newer upload URL, or its artifact or entity deleted)`);

/**
 * The bytes PUT to an upload URL. They go to a fresh R2 object that is swapped
 * into the version only if it is still pending, so however PUTs, a replacing
 * upload URL or a confirm interleave, a confirmed version's object is never
 * overwritten and its sha256 always describes it. A repeated PUT replaces the
 * earlier bytes this way. The SHA-256 is computed on the way through.
 */
export async function receiveUpload(deps: Pick<ArtifactDeps, "tenant" | "files">, versionId: string, upload: Upload) {
  const target = await deps.tenant.tx(async (sql) => {
    const { rows } = await sql.query<{ artifact_id: string; status: string; declared_size: number | null }>(
      `SELECT v.artifact_id, v.status, v.declared_size FROM artifact_versions v
         JOIN artifacts a ON a.id = v.artifact_id JOIN entities e ON e.id = a.entity_id AND e.deleted_at IS NULL
        WHERE v.id = $1`,
      [versionId],
    );
    return rows[0];
  });
  if (!target) throw uploadGone(versionId);
  if (target.status === "confirmed") throw alreadyConfirmed();
  const declared = target.declared_size;
  if (declared !== null && upload.length !== undefined && upload.length !== declared) throw sizeMismatch(declared, upload.length);

  const storageKey = artifactStorageKey(deps.tenant.tenantId, target.artifact_id, crypto.randomUUID());
  const stored = await deps.files.put(deps.tenant.tenantId, storageKey, upload, { sha256: true });
  if (declared !== null && stored.size !== declared) {
    await deps.files.delete([storageKey]);
    throw sizeMismatch(declared, stored.size);
  }
  let swapped: { row: ArtifactRow; previousKey: string | null };
  try {
    swapped = await deps.tenant.tx(async (sql) => {
      const { rows: current } = await sql.query<{ storage_key: string | null; status: string }>(
        "SELECT storage_key, status FROM artifact_versions WHERE id = $1 FOR UPDATE",
        [versionId],
      );
      if (!current.length) throw uploadGone(versionId);
      if (current[0].status === "confirmed") throw alreadyConfirmed();
      const { rows } = await sql.query<ArtifactRow & Record<string, unknown>>(
        `WITH v AS (UPDATE artifact_versions SET storage_key = $2, size = $3, sha256 = $4 WHERE id = $1 RETURNING *)
         SELECT ${COLUMNS} FROM v JOIN artifacts a ON a.id = v.artifact_id`,
        [versionId, storageKey, stored.size, stored.sha256],
      );
      return { row: rows[0], previousKey: current[0].storage_key };
    });
  } catch (e) {
    await deps.files.delete([storageKey]);
    throw e;
  }
  if (swapped.previousKey) await deps.files.delete([swapped.previousKey]);
  return presentArtifact(swapped.row);
}

/**
 * A whole confirmed version from bytes the caller already holds (the workflow
 * action uploadArtifact): the upload URL's three steps (open a version,
 * receive its bytes, confirm them by their checksum) without a link in
 * between. An upload URL opened for the same artifact meanwhile wins: this
 * one then fails as a REST client's PUT or confirm would.
 */
export async function storeArtifactVersion(
  deps: Pick<ArtifactDeps, "tenant" | "files">,
  entityId: string,
  input: Omit<UploadUrlInput, "ttl" | "size">,
  upload: Upload,
) {
  const opened = await openVersion(deps, entityId, { ...input, size: upload.length });
  const received = await receiveUpload(deps, opened.version_id, upload);
  return confirmArtifact(deps, entityId, opened.id, received.checksum!);
}

/** The checksum is accepted with or without a `sha256:` prefix; the schema has checked the hex. */
function checksumHex(checksum: string): string {
  return checksum.replace(/^sha256:/, "");
}

/**
 * Confirms the artifact's newest version once its bytes are in, checking the
 * checksum when one is sent. Confirming a confirmed version again is a no-op
 * (the checksum is still checked); a mismatch changes nothing.
 */
export async function confirmArtifact(deps: Pick<ArtifactDeps, "tenant">, entityId: string, artifactId: string, checksum: string | undefined) {
  await refuseShared(deps.tenant, [entityId]);
  return deps.tenant.tx(async (sql) => {
    await requireEntity(deps.tenant.access, sql, entityId, true);
    const { rows } = await sql.query<ArtifactRow & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM artifacts a JOIN artifact_versions v ON v.artifact_id = a.id
        WHERE a.id = $1 AND a.entity_id = $2 ORDER BY v.version DESC LIMIT 1 FOR UPDATE OF v`,
      [artifactId, entityId],
    );
    const row = rows[0];
    if (!row) throw notFound("Artifact", artifactId);
    if (row.sha256 === null) {
      throw new ApiError({ code: "NOT_UPLOADED", version: row.version }, `Version ${row.version} has no bytes yet; PUT them to its upload URL first`);
    }
    if (checksum !== undefined && checksumHex(checksum) !== row.sha256) {
      throw new ApiError(
        { code: "CHECKSUM_MISMATCH", version: row.version, expected: checksumHex(checksum), actual: row.sha256 },
        `The checksum does not match the uploaded bytes of version ${row.version}; it stays ${row.status}`,
      );
    }
    if (row.status === "confirmed") return presentArtifact(row);
    const { rows: confirmed } = await sql.query<ArtifactRow & Record<string, unknown>>(
      `WITH v AS (UPDATE artifact_versions SET status = 'confirmed', confirmed_at = now() WHERE id = $1 RETURNING *)
       SELECT ${COLUMNS} FROM v JOIN artifacts a ON a.id = v.artifact_id`,
      [row.version_id],
    );
    return presentArtifact(confirmed[0]);
  });
}

export interface ListQuery {
  artifact_type?: string;
  artifact_type_in?: string[];
  include_versions?: boolean;
}

/**
 * The entity's artifacts, oldest first. Each shows its newest confirmed
 * version, or its pending one while none is confirmed; `include_versions`
 * adds every version, newest first.
 */
export async function listArtifacts(deps: Pick<ArtifactDeps, "tenant">, entityId: string, q: ListQuery, page: Page) {
  return deps.tenant.tx(async (sql) => {
    await requireEntity(deps.tenant.access, sql, entityId, false);
    const filter = `a.entity_id = $1 AND ($2::text IS NULL OR a.artifact_type = $2) AND ($3::text[] IS NULL OR a.artifact_type = ANY($3::text[]))
      AND EXISTS (SELECT 1 FROM artifact_versions x WHERE x.artifact_id = a.id)`;
    const params = [entityId, q.artifact_type ?? null, q.artifact_type_in ?? null];
    const { rows } = await sql.query<ArtifactRow & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM artifacts a
         CROSS JOIN LATERAL (
           SELECT * FROM artifact_versions x WHERE x.artifact_id = a.id ORDER BY x.status = 'confirmed' DESC, x.version DESC LIMIT 1
         ) v
        WHERE ${filter}
        ORDER BY a.created_at, a.id LIMIT $4 OFFSET $5`,
      [...params, page.limit, offsetOf(page)],
    );
    const { rows: counted } = await sql.query<{ total: number }>(`SELECT count(*)::int AS total FROM artifacts a WHERE ${filter}`, params);
    let versions: Map<string, ArtifactRow[]> | undefined;
    if (q.include_versions && rows.length) {
      const all = await sql.query<ArtifactRow & Record<string, unknown>>(
        `SELECT ${COLUMNS} FROM artifacts a JOIN artifact_versions v ON v.artifact_id = a.id WHERE a.id = ANY($1::uuid[]) ORDER BY v.version DESC`,
        [rows.map((r) => r.id)],
      );
      versions = new Map<string, ArtifactRow[]>(rows.map((r) => [r.id, []]));
      for (const v of all.rows) versions.get(v.id)!.push(v);
    }
    return paginated(
      rows.map((r) => presentArtifact(r, versions?.get(r.id))),
      page,
      counted[0].total,
    );
  });
}

export interface StoredFile {
  body: ReadableStream<Uint8Array>;
  filename: string;
  contentType: string;
  size: number;
  version: number;
}

async function open(deps: Pick<ArtifactDeps, "tenant" | "files">, row: ArtifactRow): Promise<StoredFile> {
  const body = row.storage_key && (await deps.files.get(deps.tenant.tenantId, row.storage_key, row.size!));
  if (!body) throw new ApiError("NOT_FOUND", `The bytes of artifact ${row.id} version ${row.version} are gone`);
  return { body, filename: row.filename, contentType: row.content_type, size: row.size!, version: row.version };
}

export async function readArtifact(
  deps: Pick<ArtifactDeps, "tenant" | "files">,
  entityId: string,
  artifactId: string,
  version: number | undefined,
): Promise<StoredFile> {
  return open(deps, await deps.tenant.tx((sql) => confirmedVersion(deps.tenant.access, sql, entityId, artifactId, version)));
}

export async function artifactDownloadUrl(deps: ArtifactDeps, entityId: string, artifactId: string, opts: { ttl?: number; version?: number }): Promise<Link> {
  const row = await deps.tenant.tx((sql) => confirmedVersion(deps.tenant.access, sql, entityId, artifactId, opts.version));
  return signLink(
    deps.secret,
    "artifact-download",
    deps.tenant.tenantId,
    row.version_id,
    deps.origin,
    `/entity/downloads/${row.version_id}`,
    expiresIn(opts.ttl ?? DOWNLOAD_TTL.default, deps.clock.now()),
  );
}

/** A download link's version, as long as it is confirmed and its artifact and entity live. */
export async function readLinkedVersion(deps: Pick<ArtifactDeps, "tenant" | "files">, versionId: string): Promise<StoredFile> {
  const row = await deps.tenant.tx(async (sql) => {
    const { rows } = await sql.query<ArtifactRow & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM artifact_versions v JOIN artifacts a ON a.id = v.artifact_id
         JOIN entities e ON e.id = a.entity_id AND e.deleted_at IS NULL
        WHERE v.id = $1 AND v.status = 'confirmed'`,
      [versionId],
    );
    return rows[0];
  });
  if (!row) throw new ApiError("NOT_FOUND", "The linked file no longer exists");
  return open(deps, row);
}

/** Removes the artifact with every version, and their bytes. */
export async function deleteArtifact(deps: Pick<ArtifactDeps, "tenant" | "files">, entityId: string, artifactId: string) {
  await refuseShared(deps.tenant, [entityId]);
  const keys = await deps.tenant.tx(async (sql) => {
    await requireEntity(deps.tenant.access, sql, entityId, true);
    const { rows: found } = await sql.query("SELECT id FROM artifacts WHERE id = $1 AND entity_id = $2", [artifactId, entityId]);
    if (!found.length) throw notFound("Artifact", artifactId);
    const { rows } = await sql.query<{ storage_key: string | null }>("DELETE FROM artifact_versions WHERE artifact_id = $1 RETURNING storage_key", [
      artifactId,
    ]);
    await sql.query("DELETE FROM artifacts WHERE id = $1", [artifactId]);
    return rows.flatMap((r) => (r.storage_key ? [r.storage_key] : []));
  });
  await deps.files.delete(keys);
  return { id: artifactId, deleted: true as const };
}

/** Upload URLs live at most two hours; a version still pending a day after it was opened was abandoned. */
const ABANDONED_AFTER_HOURS = 24;
const SWEEP_BATCH = 1000;
const SWEEP_ROUNDS = 10;

/**
 * Cron: removes abandoned pending versions of every tenant (never a confirmed
 * one) and their bytes, then the artifacts left without any version. Rows go
 * before bytes, so a version confirmed meanwhile keeps its bytes; a failed R2
 * delete leaves only unreachable objects.
 */
export async function sweepAbandonedVersions(database: Database, files: FileStore, now: Date): Promise<number> {
  let removed = 0;
  for (let round = 0; round < SWEEP_ROUNDS; round++) {
    const { rows } = await database.system((sql) =>
      sql.query<{ artifact_id: string; storage_key: string | null }>(
        `DELETE FROM artifact_versions WHERE status = 'pending' AND id IN (
           SELECT id FROM artifact_versions WHERE status = 'pending' AND created_at <= $1::timestamptz - make_interval(hours => $2)
            ORDER BY created_at LIMIT $3)
         RETURNING artifact_id, storage_key`,
        [now.toISOString(), ABANDONED_AFTER_HOURS, SWEEP_BATCH],
      ),
    );
    await files.delete(rows.flatMap((r) => (r.storage_key ? [r.storage_key] : [])));
    if (rows.length) await removeEmptied(database, [...new Set(rows.map((r) => r.artifact_id))]);
    removed += rows.length;
    if (rows.length < SWEEP_BATCH) break;
  }
  return removed;
}

/**
 * Opening an upload URL locks the artifact before adding a version to it.
 * Locking first here, then checking for versions in a later statement (which
 * sees what committed while it waited), means such a version is either seen
 * and the artifact kept, or the upload URL finds the artifact gone and starts
 * a new one; one statement would judge emptiness on a snapshot from before the wait.
 */
async function removeEmptied(database: Database, artifactIds: string[]): Promise<void> {
  await database.system(async (sql) => {
    await sql.query("BEGIN");
    try {
      await sql.query("SELECT id FROM artifacts WHERE id = ANY($1::uuid[]) FOR UPDATE", [artifactIds]);
      await sql.query("DELETE FROM artifacts a WHERE a.id = ANY($1::uuid[]) AND NOT EXISTS (SELECT 1 FROM artifact_versions v WHERE v.artifact_id = a.id)", [
        artifactIds,
      ]);
      await sql.query("COMMIT");
    } catch (e) {
      await sql.query("ROLLBACK").catch(() => {});
      throw e;
    }
  });
}
