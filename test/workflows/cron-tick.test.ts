// The cron tick's dispatch: schedules provisioned by activation (through the
// API), then ticks driven at chosen minutes. Each test ticks in an earlier year
// than the tests before it, so the schedules they leave behind (advanced past
// their own ticks) are never due in its ticks.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery, withSystemDb, type TenantCreds } from "../support/api";
import { activeWorkflow, minimalDefinition } from "./fixture";
import { dispatchDueSchedules, type DispatchOutcome } from "../../src/workflows/triggers/cron-tick";
import { runCronTick } from "../../src/cron/tick";
import { env } from "cloudflare:test";

interface Schedule {
  id: string;
  trigger_id: string;
  cron: string;
  offset_seconds: number;
  catch_up: boolean;
  next_run_at: string;
  last_run_at: string | null;
}

interface RunRow {
  id: string;
  tenant_id: string;
  workflow_id: string;
  workflow_version: number;
  trigger_id: string;
  trigger_key: string;
  trigger_type: string;
  status: string;
  context: { input: { scheduled_at: string }; trigger: { id: string; type: string }; run: { id: string }; data?: unknown };
  not_before: string;
}

const tick = (iso: string): Promise<DispatchOutcome> => withSystemDb((db) => dispatchDueSchedules(db, new Date(iso)));

const plusSeconds = (iso: string, seconds: number) => new Date(Date.parse(iso) + seconds * 1000).toISOString().replace(".000Z", "Z");

async function cronWorkflow(creds: TenantCreds, triggers: object[]) {
  const { id, activation } = await activeWorkflow(creds, minimalDefinition({ triggers }));
  return { id, activation };
}

async function scheduleOf(triggerId: string): Promise<Schedule> {
  const [row] = await systemQuery<Schedule & Record<string, unknown>>(
    `SELECT id, trigger_id, cron, offset_seconds, catch_up, next_run_at, last_run_at FROM cron_schedules WHERE trigger_id = $1`,
    [triggerId],
  );
  return row;
}

async function setNextRun(triggerId: string, iso: string): Promise<void> {
  await systemQuery(`UPDATE cron_schedules SET next_run_at = $2 WHERE trigger_id = $1`, [triggerId, iso]);
}

async function runsOf(triggerId: string): Promise<RunRow[]> {
  return systemQuery<RunRow & Record<string, unknown>>(
    `SELECT id, tenant_id, workflow_id, workflow_version, trigger_id, trigger_key, trigger_type, status, context, not_before
       FROM workflow_runs WHERE trigger_id = $1 ORDER BY context->'input'->>'scheduled_at'`,
    [triggerId],
  );
}

describe("activation provisions schedules", () => {
  it("with the next tick, a 0-9 s offset, and catch-up for hourly and rarer expressions only", async () => {
    const creds = await createTenant();
    const before = Date.now();
    const { activation } = await cronWorkflow(creds, [
      { id: "minutely", cron: "* * * * *" },
      { id: "hourly", cron: "0 * * * *" },
    ]);
    const [minutely, hourly] = await Promise.all(activation.triggers.map((t) => scheduleOf(t.trigger_id)));
    expect(minutely.cron).toBe("* * * * *");
    expect(minutely.catch_up).toBe(false);
    expect(hourly.catch_up).toBe(true);
    for (const s of [minutely, hourly]) {
      expect(Number.isInteger(s.offset_seconds) && s.offset_seconds >= 0 && s.offset_seconds <= 9).toBe(true);
      expect(s.last_run_at).toBeNull();
    }
    const nextMinute = Math.floor(before / 60_000) * 60_000 + 60_000;
    expect(Date.parse(minutely.next_run_at)).toBeGreaterThanOrEqual(nextMinute);
    expect(Date.parse(minutely.next_run_at)).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(new Date(hourly.next_run_at).getUTCMinutes()).toBe(0);
    expect(Date.parse(hourly.next_run_at)).toBeGreaterThan(before);
    expect(Date.parse(hourly.next_run_at)).toBeLessThanOrEqual(before + 3_600_000);
  });

  it("refuses an expression outside the five crontab fields and saves nothing", async () => {
    const creds = await createTenant();
    for (const cron of ["0 0 L * *", "@daily", "0 0 * * 1#2", "*/5 * * * * *", "0 0 30 2 *"]) {
      const res = await call("POST", "/definition/workflows", {
        auth: creds.auth,
        body: { name: `bad-${crypto.randomUUID().slice(0, 8)}`, definition_json: minimalDefinition({ triggers: [{ id: "c", cron }] }) },
      });
      expectError(res, 422, "VALIDATION_FAILED");
      expect(res.json.error.details.errors.some((line: string) => line.startsWith("definition_json.triggers[0].cron"))).toBe(true);
    }
    expect(await systemQuery(`SELECT 1 FROM workflow_definitions WHERE tenant_id = $1`, [creds.tenantId])).toEqual([]);
  });
});

describe("dispatchDueSchedules", () => {
  it("starts one pending cron run per due schedule, with the tick and the offset", async () => {
    const creds = await createTenant();
    const { id, activation } = await cronWorkflow(creds, [{ id: "hourly", cron: "0 * * * *" }]);
    const triggerId = activation.triggers[0].trigger_id;
    const T = "2024-05-06T10:00:00Z";
    await setNextRun(triggerId, T);
    const { offset_seconds } = await scheduleOf(triggerId);

    // A tick landing late in its minute still dispatches that minute.
    const outcome = await tick("2024-05-06T10:00:41.500Z");
    expect(outcome.runs).toBeGreaterThanOrEqual(1);
    const runs = await runsOf(triggerId);
    expect(runs).toHaveLength(1);
    const [run] = runs;
    expect(run.tenant_id).toBe(creds.tenantId);
    expect(run.workflow_id).toBe(id);
    expect(run.workflow_version).toBe(activation.version);
    expect(run.trigger_key).toBe("hourly");
    expect(run.trigger_type).toBe("cron");
    expect(run.status).toBe("pending");
    expect(run.context).toEqual({ input: { scheduled_at: T }, trigger: { id: "hourly", type: "cron" }, run: { id: run.id } });
    expect(run.not_before).toBe(plusSeconds(T, offset_seconds));
    const after = await scheduleOf(triggerId);
    expect(after.next_run_at).toBe("2024-05-06T11:00:00Z");
    expect(after.last_run_at).toBe(T);
    expect(after.offset_seconds).toBe(offset_seconds);
  });

  it("dispatches nothing twice for one minute, neither on a repeat nor from two ticks at once", async () => {
    const creds = await createTenant();
    const { activation } = await cronWorkflow(creds, [
      { id: "a", cron: "*/15 * * * *" },
      { id: "b", cron: "30 9 * * *" },
    ]);
    const [a, b] = activation.triggers.map((t) => t.trigger_id);
    await setNextRun(a, "2023-03-01T09:30:00Z");
    await setNextRun(b, "2023-03-01T09:30:00Z");
    await Promise.all([tick("2023-03-01T09:30:00Z"), tick("2023-03-01T09:30:05Z")]);
    await tick("2023-03-01T09:30:59Z");
    expect((await runsOf(a)).map((r) => r.context.input.scheduled_at)).toEqual(["2023-03-01T09:30:00Z"]);
    expect((await runsOf(b)).map((r) => r.context.input.scheduled_at)).toEqual(["2023-03-01T09:30:00Z"]);
    expect((await scheduleOf(a)).next_run_at).toBe("2023-03-01T09:45:00Z");
    expect((await scheduleOf(b)).next_run_at).toBe("2023-03-02T09:30:00Z");

    // The next occurrence fires at its own minute, not before.
    await tick("2023-03-01T09:44:00Z");
    expect(await runsOf(a)).toHaveLength(1);
    await tick("2023-03-01T09:45:00Z");
    expect((await runsOf(a)).map((r) => r.context.input.scheduled_at)).toEqual(["2023-03-01T09:30:00Z", "2023-03-01T09:45:00Z"]);
  });

  it("makes up a missed tick once for an hourly expression, not for an every-minute one", async () => {
    const creds = await createTenant();
    const { activation } = await cronWorkflow(creds, [
      { id: "hourly", cron: "0 * * * *" },
      { id: "minutely", cron: "* * * * *" },
      { id: "fively", cron: "*/5 * * * *" },
      { id: "daily", cron: "0 6 * * *" },
    ]);
    const [hourly, minutely, fively, daily] = activation.triggers.map((t) => t.trigger_id);
    await setNextRun(hourly, "2022-07-04T10:00:00Z");
    await setNextRun(minutely, "2022-07-04T10:00:00Z");
    await setNextRun(fively, "2022-07-04T10:00:00Z");
    // Three daily occurrences missed: one run makes them up.
    await setNextRun(daily, "2022-07-02T06:00:00Z");
    await tick("2022-07-04T10:03:00Z");

    const hourlyRuns = await runsOf(hourly);
    expect(hourlyRuns.map((r) => r.context.input.scheduled_at)).toEqual(["2022-07-04T10:00:00Z"]);
    expect(hourlyRuns[0].not_before).toBe(plusSeconds("2022-07-04T10:00:00Z", (await scheduleOf(hourly)).offset_seconds));
    expect((await scheduleOf(hourly)).next_run_at).toBe("2022-07-04T11:00:00Z");
    expect((await scheduleOf(hourly)).last_run_at).toBe("2022-07-04T10:03:00Z");
    // The current minute is an occurrence of `* * * * *`: that one runs, the missed ones do not.
    expect((await runsOf(minutely)).map((r) => r.context.input.scheduled_at)).toEqual(["2022-07-04T10:03:00Z"]);
    expect((await scheduleOf(minutely)).next_run_at).toBe("2022-07-04T10:04:00Z");
    expect(await runsOf(fively)).toEqual([]);
    expect((await scheduleOf(fively)).next_run_at).toBe("2022-07-04T10:05:00Z");
    expect((await scheduleOf(fively)).last_run_at).toBeNull();
    expect((await runsOf(daily)).map((r) => r.context.input.scheduled_at)).toEqual(["2022-07-02T06:00:00Z"]);
    expect((await scheduleOf(daily)).next_run_at).toBe("2022-07-05T06:00:00Z");

    // Missed at 11:00 and ticking at 12:00, an occurrence itself: both run.
    await tick("2022-07-04T12:00:00Z");
    expect((await runsOf(hourly)).map((r) => r.context.input.scheduled_at)).toEqual(["2022-07-04T10:00:00Z", "2022-07-04T11:00:00Z", "2022-07-04T12:00:00Z"]);
    expect((await scheduleOf(hourly)).next_run_at).toBe("2022-07-04T13:00:00Z");
    expect((await runsOf(fively)).map((r) => r.context.input.scheduled_at)).toEqual(["2022-07-04T12:00:00Z"]);
  });

  it("dispatches nothing for a disabled trigger and moves its schedule on; enabling starts from now", async () => {
    const creds = await createTenant();
    const { id, activation } = await cronWorkflow(creds, [{ id: "hourly", cron: "0 * * * *" }]);
    const triggerId = activation.triggers[0].trigger_id;
    const off = await call("PUT", `/workflows/${id}/triggers/hourly/disable`, { auth: creds.auth });
    expect(off.status).toBe(200);
    expect(off.json.data.enabled).toBe(false);
    await setNextRun(triggerId, "2021-01-01T00:00:00Z");
    await tick("2021-01-01T00:00:00Z");
    expect(await runsOf(triggerId)).toEqual([]);
    expect((await scheduleOf(triggerId)).next_run_at).toBe("2021-01-01T01:00:00Z");
    expect((await scheduleOf(triggerId)).last_run_at).toBeNull();

    const on = await call("PUT", `/workflows/${id}/triggers/${triggerId}/enable`, { auth: creds.auth });
    expect(on.status).toBe(200);
    expect(Date.parse((await scheduleOf(triggerId)).next_run_at)).toBeGreaterThan(Date.parse("2024-01-01T00:00:00Z"));
  });

  it("keeps going past a schedule that fails, and looks at that one again a day later", async () => {
    const creds = await createTenant();
    const { activation } = await cronWorkflow(creds, [
      { id: "broken", cron: "0 * * * *" },
      { id: "fine", cron: "0 * * * *" },
    ]);
    const [broken, fine] = activation.triggers.map((t) => t.trigger_id);
    // An expression saved before today's checks, say: the tick must survive it.
    await systemQuery(`UPDATE cron_schedules SET cron = '0 0 L * *' WHERE trigger_id = $1`, [broken]);
    await setNextRun(broken, "2020-02-03T08:00:00Z");
    await setNextRun(fine, "2020-02-03T08:00:00Z");
    const outcome = await tick("2020-02-03T08:00:00Z");
    expect(outcome.failed).toBe(1);
    expect(await runsOf(broken)).toEqual([]);
    expect((await scheduleOf(broken)).next_run_at).toBe("2020-02-04T08:00:00Z");
    expect((await runsOf(fine)).map((r) => r.context.input.scheduled_at)).toEqual(["2020-02-03T08:00:00Z"]);
    expect((await scheduleOf(fine)).next_run_at).toBe("2020-02-03T09:00:00Z");
  });

  it("resolves contextData against the cron input; a firing whose contextData fails starts nothing and moves on", async () => {
    const creds = await createTenant();
    const { activation } = await cronWorkflow(creds, [
      { id: "tagged", cron: "0 12 * * *", contextData: { at: "{{ context.input.scheduled_at }}", by: "{{ context.trigger.type }}" } },
      { id: "failing", cron: "0 12 * * *", contextData: '{{ $number("twelve") }}' },
    ]);
    const [tagged, failing] = activation.triggers.map((t) => t.trigger_id);
    await setNextRun(tagged, "2019-12-24T12:00:00Z");
    await setNextRun(failing, "2019-12-24T12:00:00Z");
    const outcome = await tick("2019-12-24T12:00:00Z");
    expect(outcome.failed).toBe(1);
    const [run] = await runsOf(tagged);
    expect(run.context.data).toEqual({ at: "2019-12-24T12:00:00Z", by: "cron" });
    expect(await runsOf(failing)).toEqual([]);
    expect((await scheduleOf(failing)).next_run_at).toBe("2019-12-25T12:00:00Z");
    expect((await scheduleOf(failing)).last_run_at).toBeNull();
  });

  it("keeps each tenant's runs in that tenant and follows the activated version", async () => {
    const [one, two] = await Promise.all([createTenant(), createTenant()]);
    const first = await cronWorkflow(one, [{ id: "nightly", cron: "0 3 * * *" }]);
    const second = await cronWorkflow(two, [{ id: "nightly", cron: "0 3 * * *" }]);
    const put = await call("PUT", `/definition/workflows/${first.id}`, {
      auth: one.auth,
      body: { name: `renamed-${crypto.randomUUID().slice(0, 8)}`, definition_json: minimalDefinition({ triggers: [{ id: "nightly", cron: "0 3 * * *" }] }) },
    });
    expect(put.status).toBe(200);
    const reactivated = await call("POST", `/workflows/${first.id}/activate`, { auth: one.auth, body: {} });
    expect(reactivated.status).toBe(200);
    const oneTrigger = first.activation.triggers[0].trigger_id;
    const twoTrigger = second.activation.triggers[0].trigger_id;
    // Re-activation with the same expression keeps the schedule.
    expect(reactivated.json.data.triggers[0].trigger_id).toBe(oneTrigger);
    await setNextRun(oneTrigger, "2018-09-09T03:00:00Z");
    await setNextRun(twoTrigger, "2018-09-09T03:00:00Z");
    await tick("2018-09-09T03:00:00Z");
    const [oneRun] = await runsOf(oneTrigger);
    const [twoRun] = await runsOf(twoTrigger);
    expect(oneRun.tenant_id).toBe(one.tenantId);
    expect(oneRun.workflow_version).toBe(first.activation.version + 1);
    expect(twoRun.tenant_id).toBe(two.tenantId);
    expect(twoRun.workflow_id).toBe(second.id);
    expect(twoRun.workflow_version).toBe(second.activation.version);
  });

  it("runs as a job of the minute tick", async () => {
    const creds = await createTenant();
    const { activation } = await cronWorkflow(creds, [{ id: "hourly", cron: "0 * * * *" }]);
    const triggerId = activation.triggers[0].trigger_id;
    await setNextRun(triggerId, "2017-06-01T00:00:00Z");
    const outcome = await runCronTick(env, new Date("2017-06-01T00:00:00Z"));
    expect(outcome.dispatchCronSchedules).toBe("ok");
    expect((await runsOf(triggerId)).map((r) => r.context.input.scheduled_at)).toEqual(["2017-06-01T00:00:00Z"]);
  });
});
