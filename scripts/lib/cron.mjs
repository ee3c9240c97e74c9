// `wrangler dev` never fires cron triggers by itself: it only runs the
// scheduled handler when something requests /cdn-cgi/handler/scheduled. For
// `npm run dev` this does what Cloudflare does in production: at every minute,
// for each cron trigger of wrangler.toml, with that minute as scheduledTime.
import { readWranglerConfig } from "./wrangler-config.mjs";

export const EVERY_MINUTE = "* * * * *";

/**
 * wrangler.toml's cron triggers, split into the ones dev runs (every minute)
 * and the rest.
 */
export async function cronTriggers() {
  const crons = (await readWranglerConfig()).triggers?.crons ?? [];
  return { run: crons.filter((c) => c === EVERY_MINUTE), skipped: crons.filter((c) => c !== EVERY_MINUTE) };
}

/**
 * Requests the scheduled handler for each of `crons` at every multiple of
 * `intervalMs` (a minute unless a test shortens it), passing that instant as
 * scheduledTime. Failures are reported once the Worker has answered a first
 * time (before that, wrangler is still starting). Returns a function that stops it.
 *
 * @param {{ baseUrl: string, crons: string[], intervalMs: number, log: (line: string) => void }} opts
 */
export function startCronTicks({ baseUrl, crons, intervalMs, log }) {
  let timer;
  let answered = false;

  async function tick(cron, at) {
    const url = `${baseUrl}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent(cron)}&time=${at}`;
    try {
      const res = await fetch(url);
      const text = await res.text();
      answered = true;
      if (!res.ok) log(`cron tick ${new Date(at).toISOString()} answered ${res.status}: ${text.slice(0, 200)}`);
    } catch (e) {
      if (answered) log(`cron tick ${new Date(at).toISOString()} failed: ${e?.cause?.message ?? e?.message ?? e}`);
    }
  }

  function arm() {
    const now = Date.now();
    const at = (Math.floor(now / intervalMs) + 1) * intervalMs;
    timer = setTimeout(() => {
      arm();
      for (const cron of crons) void tick(cron, at);
    }, at - now);
  }

  if (crons.length) arm();
  return () => clearTimeout(timer);
}
