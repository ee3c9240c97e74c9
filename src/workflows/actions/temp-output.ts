// What every action that turns temp files into temp files shares (the
// archive, PDF and CSV families): the permissions they declare, and the rule
// that a failed action keeps none of the temp files it made.
import { removeTempFiles } from "../../entity/temp-files/service";
import type { FileRef } from "./file-ref";
import type { ConfinedServices } from "../../access/confined-services";

/**
 * What the temp-file routes need: reading a temp file `entity:read`
 * (GET /entity/temp-files/:id), making one `entity:create`
 * (POST /entity/temp-files); the actions of these families declare both.
 */
export const TEMP_FILES = ["entity:read", "entity:create"] as const;

/**
 * Runs `work`, which passes every temp file it makes through `made`; when
 * it fails, those files are removed before the failure goes on, so a failed
 * action leaves nothing behind.
 */
export async function allOrNothing<T>(services: ConfinedServices, work: (made: (ref: FileRef) => FileRef) => Promise<T>): Promise<T> {
  const ids: string[] = [];
  try {
    return await work((ref) => (ids.push(ref.temp_file_id), ref));
  } catch (e) {
    // A removal that fails leaves files nobody refers to, which expire within 24 hours; the action's own failure is what to report.
    await removeTempFiles(services, ids).catch(() => undefined);
    throw e;
  }
}
