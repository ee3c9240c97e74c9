// The once-a-minute cron tick: housekeeping that spans tenants, run as the
// connecting role (no tenant context). Each job is independent; one failing
// does not stop the others.
import { Database } from "../db/client";
import { log } from "../lib/logger";
import { IDEMPOTENCY_WINDOW_HOURS } from "../gateway/idempotency";
import { requeueUndelivered } from "../events/delivery";
import { FileStore } from "../lib/files/object-store";
import { sweepExpiredTempFiles } from "../entity/temp-files/service";
import { sweepAbandonedVersions } from "../entity/artifacts/service";
import { dispatchDueSchedules } from "../workflows/triggers/cron-tick";
import { kickRuns } from "../workflows/runs/run-client";
import { sweepRuns } from "../workflows/runs/sweep";
import { sweepUploadSlots } from "../apps/uploads/slots";

type Job = (database: Database, env: Env, now: Date) => Promise<unknown>;

export const expireIdempotencyRecords: Job = (database) =>
  database.system((sql) => sql.query(`DELETE FROM idempotency_records WHERE created_at < now() - interval '${IDEMPOTENCY_WINDOW_HOURS} hours'`));

export const requeueEvents: Job = (database, env, now) => requeueUndelivered(database, env.EVENTS, now);

export const expireTempFiles: Job = (database, env, now) => sweepExpiredTempFiles(database, new FileStore(env.FILES, env.MASTER_KEY), now);

export const expireAbandonedUploads: Job = (database, env, now) => sweepAbandonedVersions(database, new FileStore(env.FILES, env.MASTER_KEY), now);

export const dispatchCronSchedules: Job = async (database, env, now) => kickRuns(env, (await dispatchDueSchedules(database, now)).started);

export const expireUploadSlots: Job = (database, _env, now) => sweepUploadSlots(database, now);

export const sweepWorkflowRuns: Job = (database, env, now) => sweepRuns(database, env, now);

const JOBS: Record<string, Job> = {
  expireIdempotencyRecords,
  requeueEvents,
  expireTempFiles,
  expireAbandonedUploads,
  expireUploadSlots,
  dispatchCronSchedules,
  sweepWorkflowRuns,
};

export async function runCronTick(env: Env, now: Date): Promise<Record<string, "ok" | string>> {
  const database = new Database(env.DATABASE_URL, env.NEON_WS_PROXY);
  const outcome: Record<string, string> = {};
  try {
    for (const [name, job] of Object.entries(JOBS)) {
      try {
        await job(database, env, now);
        outcome[name] = "ok";
      } catch (e) {
        outcome[name] = (e as Error).message;
        log.error("cron job failed", { job: name, error: (e as Error).message });
      }
    }
  } finally {
    await database.close();
  }
  return outcome;
}
