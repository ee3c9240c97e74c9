// What a command list asks of the world beyond the render's own state: the
// catalog actions, the self-service writes and the upload slots. The render
// (../answer.ts) provides them for its app user; the runner stays free of
// SQL and fetches, so its sequencing is tested on its own.
import type { ErrorValue } from "../../../lib/errors";

/** How an `actions` or `job` step ended; `wrote` when a writing action ran (the render's sources are fetched again). */
export type InlineOutcome = { status: "success"; output: unknown; wrote: boolean } | { status: "error"; error: ErrorValue; wrote: boolean };

export interface ActionsRequest {
  actions: unknown[];
  input?: unknown;
  output?: unknown;
  permissionSet: "readonly" | "dataMutation";
  additionalAllowed: string[];
  denied: string[];
}

export interface JobRequest {
  job: string;
  input?: unknown;
  additionalAllowed: string[];
  denied: string[];
}

export type PrincipalOp = { op: "appendUnique" | "remove" | "moveItem"; path: string; value: unknown; by?: 1 | -1 };

export interface PrincipalWrite {
  principalType: "company" | "team" | "user";
  /** Absent or `self`: the render's own principal of that type. */
  principalId?: string;
  config?: Record<string, unknown>;
  ops?: PrincipalOp[];
}

export interface UploadSlot {
  uploadUrl: string;
  uploadId: string;
  expiresAt: string;
}

/** What a form's preview shows of an uploaded file. */
export interface UploadPreview {
  url: string;
  name: string;
  contentType: string;
}

export interface CommandServices {
  /** Runs the list with the command scope as what its templates read. */
  actions(request: ActionsRequest, scope: Record<string, unknown>): Promise<InlineOutcome>;
  job(request: JobRequest, scope: Record<string, unknown>): Promise<InlineOutcome>;
  /** Throws an ApiError when refused or invalid; answers the principal's effective config after the write. */
  setPrincipalConfig(write: PrincipalWrite): Promise<unknown>;
  /** `target` is `<user|company|team>.<NAME>`; throws an ApiError when refused. */
  setSecret(target: string, value: string): Promise<void>;
  uploadSlots(request: { slots: unknown; type?: unknown; ttl?: unknown }): Promise<Record<string, UploadSlot>>;
  /** The file the render's user uploaded to that slot; throws an ApiError: GONE past the file's life, any other when nothing (of this user's) was uploaded. */
  uploadPreview(uploadId: string): Promise<UploadPreview>;
}
