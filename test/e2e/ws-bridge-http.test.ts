// The bridge's HTTP side (scripts/lib/ws-bridge.mjs): Neon's SQL-over-HTTP
// protocol answered against the local Postgres, called through the driver's
// own HTTP mode (`neon()`), so its type parsing and error mapping run as
// they do against Neon.
import { neon, neonConfig } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const url = inject("databaseUrl");
const bridge = inject("wsProxy");
const endpoint = `http://${bridge}/sql`;

beforeAll(() => {
  neonConfig.fetchEndpoint = endpoint;
});
afterAll(() => {
  neonConfig.fetchEndpoint = (host) => `https://${host}/sql`;
});

const sql = neon(url, { fullResults: true });
const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(endpoint, {
    method: "POST",
    headers: { "Neon-Connection-String": url, "Neon-Raw-Text-Output": "true", "Neon-Array-Mode": "true", ...headers },
    body: JSON.stringify(body),
  });

describe("the bridge's POST /sql", () => {
  it("answers one statement with its fields and rows, parsed by the driver's types", async () => {
    const result = await sql.query(
      "SELECT $1::int AS n, $2::text AS t, NULL::text AS nothing, true AS yes, '{\"a\":1}'::jsonb AS j, ARRAY[1,2]::int[] AS arr, '\\x0102'::bytea AS b",
      [7, "x"],
    );
    expect(result.command).toBe("SELECT");
    expect(result.rowCount).toBe(1);
    expect(result.fields.map((f) => f.name)).toEqual(["n", "t", "nothing", "yes", "j", "arr", "b"]);
    expect(result.fields[0]!.dataTypeID).toBe(23);
    const row = result.rows[0]!;
    expect(row).toMatchObject({ n: 7, t: "x", nothing: null, yes: true, j: { a: 1 }, arr: [1, 2] });
    expect([...(row.b as Uint8Array)]).toEqual([1, 2]);
  });

  it("answers the raw JSON of Neon's format", async () => {
    const res = await post({ query: "SELECT 1 AS one, NULL AS none", params: [] });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ command: "SELECT", rowCount: 1, rows: [["1", null]], rowAsArray: true });
    expect(body.fields[0]).toMatchObject({ name: "one", dataTypeID: 23, format: "text" });
  });

  it("runs a batch as one transaction, with the isolation and read-only headers", async () => {
    const [a, b, c] = await sql.transaction(
      [
        sql.query("SELECT current_setting('transaction_isolation') AS iso, current_setting('transaction_read_only') AS ro"),
        sql.query("SELECT set_config('app.x', 'y', true)"),
        sql.query("SELECT current_setting('app.x') AS x, txid_current_if_assigned() IS NULL AS unassigned"),
      ],
      { isolationLevel: "RepeatableRead", readOnly: true },
    );
    expect(a!.rows[0]).toEqual({ iso: "repeatable read", ro: "on" });
    expect(b!.rowCount).toBe(1);
    expect(c!.rows[0]).toEqual({ x: "y", unassigned: true });
  });

  it("rolls a failed batch back and answers the error as Neon does (400, SQLSTATE and all)", async () => {
    const table = `bridge_http_${process.pid}`;
    await sql.query(`CREATE TABLE IF NOT EXISTS ${table} (id int PRIMARY KEY)`);
    try {
      const failing = sql.transaction([sql.query(`INSERT INTO ${table} VALUES (1)`), sql.query(`INSERT INTO ${table} VALUES (1)`)]);
      await expect(failing).rejects.toMatchObject({ code: "23505", constraint: `${table}_pkey`, severity: "ERROR" });
      expect((await sql.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]).toEqual({ n: 0 });
      // The backend went back clean: a write outside a batch commits.
      await sql.query(`INSERT INTO ${table} VALUES (2)`);
      expect((await sql.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]).toEqual({ n: 1 });
      await expect(sql.transaction([sql.query(`INSERT INTO ${table} VALUES (3)`)], { readOnly: true })).rejects.toMatchObject({ code: "25006" });
    } finally {
      await sql.query(`DROP TABLE ${table}`);
    }
  });

  it("takes one statement per query, as Neon's extended-protocol statements do", async () => {
    await expect(sql.query("SELECT 1; SELECT 2")).rejects.toMatchObject({ code: "42601" });
  });

  it("cancels a statement past a statement_timeout set earlier in the batch", async () => {
    const started = Date.now();
    await expect(sql.transaction([sql.query("SELECT set_config('statement_timeout', '100', true)"), sql.query("SELECT pg_sleep(5)")])).rejects.toMatchObject({
      code: "57014",
    });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("reaches only loopback Postgres and refuses what is not the protocol", async () => {
    const elsewhere = url.replace(/@(127\.0\.0\.1|localhost)/, "@10.1.2.3");
    expect((await post({ query: "SELECT 1" }, { "Neon-Connection-String": elsewhere })).status).toBe(403);
    expect((await post("nonsense")).status).toBe(400);
    expect((await fetch(`http://${bridge}/other`, { method: "POST" })).status).toBe(404);
  });
});
