// Debian's headless Chromium as the browser tests and the host bench drive it
// (playwright-core launches it; CI installs it, .ci/run). Running as root (CI
// containers) needs --no-sandbox; the rest keeps the browser off the network
// and quiet. Playwright adds a fresh --user-data-dir.
import { existsSync } from "node:fs";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Why the browser tests cannot run here (`what`: whose tests), or undefined when Chromium is installed. */
export function chromiumMissing(what) {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run ${what}`;
}
