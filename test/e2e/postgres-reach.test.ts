// As root, the embedded Postgres runs as the `postgres` user; a checkout
// under a folder that user cannot enter must fail with what to change, not
// with initdb's bare EACCES (scripts/lib/postgres.mjs).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { assertReachable, removeStaleLock } from "../../scripts/lib/postgres.mjs";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("assertReachable", () => {
  it("names a closed folder above the path and the command that opens it", () => {
    dir = mkdtempSync(join(tmpdir(), "reach-"));
    const nested = join(dir, "checkout", "node_modules");
    mkdirSync(nested, { recursive: true });
    chmodSync(dir, 0o700);
    expect(() => assertReachable([nested])).toThrow(
      `cannot enter ${dir} (mode 700, owner uid ${process.getuid!()}). Let it pass through (search only, it still cannot list them): chmod o+x ${dir};`,
    );
  });

  it("passes once every folder above can be entered", () => {
    dir = mkdtempSync(join(tmpdir(), "reach-"));
    const nested = join(dir, "checkout");
    mkdirSync(nested);
    chmodSync(dir, 0o711);
    chmodSync(nested, 0o755);
    expect(() => assertReachable([nested])).not.toThrow();
  });
});

describe("removeStaleLock", () => {
  const lockIn = (pid: number) => {
    dir = mkdtempSync(join(tmpdir(), "lock-"));
    writeFileSync(join(dir, "postmaster.pid"), `${pid}\n${dir}\n1700000000\n5432\n`);
    return join(dir, "postmaster.pid");
  };

  it("removes the lock of a server that is gone (killed with its group), so Postgres starts again on the folder", () => {
    // Above the largest pid Linux hands out (2^22).
    const lock = lockIn(4_194_305);
    removeStaleLock(dir);
    expect(existsSync(lock)).toBe(false);
  });

  it("keeps the lock of a process that is alive", () => {
    const lock = lockIn(process.pid);
    removeStaleLock(dir);
    expect(existsSync(lock)).toBe(true);
  });
});
