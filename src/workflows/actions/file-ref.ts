// How bytes move between actions: as temp files, never as big values in the
// run's state. An action that makes bytes stores them as a temp file and
// answers a file reference; an action that reads bytes takes a temp file id.
import { createTempFile, readTempFile, type TempFileView } from "../../entity/temp-files/service";
import type { ConfinedServices } from "../../access/confined-services";

/**
 * What an action's result carries for a file it made or read. Results are
 * shaped as the REST API answers (snake_case); configs are camelCase.
 */
export interface FileRef {
  temp_file_id: string;
  name: string;
  content_type: string;
  size: number;
  /** ISO time the temp file expires at (24 hours after it was made). */
  expires_at: string;
}

export function fileRef(view: TempFileView): FileRef {
  return { temp_file_id: view.id, name: view.name, content_type: view.content_type, size: view.size, expires_at: view.expires_at };
}

/** A live temp file of the run's tenant, streaming; 404 NOT_FOUND (the action's error) when unknown or expired. */
export async function openTempFile(services: ConfinedServices, id: string): Promise<{ ref: FileRef; body: ReadableStream<Uint8Array> }> {
  const { file, body } = await readTempFile(services, id);
  return { ref: fileRef(file), body };
}

/**
 * Stores bytes as a new temp file of the run's tenant (encrypted, at most
 * 25 MiB: 413 PAYLOAD_TOO_LARGE past it). Pass `length` when known: the
 * bytes then stream straight through instead of in 5 MiB parts.
 */
export async function saveTempFile(
  services: ConfinedServices,
  file: { name: string; contentType: string; body: ReadableStream<Uint8Array> | Uint8Array; length?: number },
): Promise<FileRef> {
  const bytes = file.body instanceof Uint8Array ? file.body : undefined;
  const body = bytes ? new Blob([bytes]).stream() : (file.body as ReadableStream<Uint8Array>);
  const view = await createTempFile(services, {
    name: file.name,
    contentType: file.contentType,
    upload: { body, length: bytes ? bytes.byteLength : file.length },
  });
  return fileRef(view);
}
