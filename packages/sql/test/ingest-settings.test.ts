// DuckDB runs the ingest on one thread; the caller's `threads` setting is back once the ingest is
// over, whether it succeeded, left a trace out, or failed.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, describe, expect, test } from "vitest";
import { openTraceDatabase, SqlError } from "../src/index.js";
import { createSchema, ingestTraces } from "../src/trace-database.js";
import { writeWriterTrace } from "./trace-fixtures.js";

const workDir = mkdtempSync(join(tmpdir(), "cg-sql-settings-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const good = writeWriterTrace(join(workDir, "good.jsonl"), "settings-good");
const broken = join(workDir, "broken.jsonl");
writeWriterTrace(broken, "settings-broken");
writeFileSync(broken, '{"kind":"op","span_id":"s1"}\n', { flag: "a" });

describe("DuckDB's threads setting", () => {
  test.each([true, false])("is the caller's again after an ingest (worker: %s)", async (worker) => {
    const database = await openTraceDatabase({ traces: [good, broken], duckdb: { threads: "3" }, worker });
    try {
      expect(database.report.rejected.map((entry) => entry.file)).toEqual([broken]);
      const { rows } = await database.query("SELECT current_setting('threads')");
      expect(Number(rows[0]?.[0])).toBe(3);
    } finally {
      database.close();
    }
  });

  test("is the caller's again after a failed ingest, which leaves no row", async () => {
    const instance = await DuckDBInstance.create(":memory:", { threads: "2" });
    const connection = await instance.connect();
    try {
      await createSchema(connection);
      await expect(ingestTraces(connection, [good, broken], { strict: true })).rejects.toBeInstanceOf(
        SqlError,
      );
      const threads = await connection.runAndReadAll("SELECT current_setting('threads')");
      expect(Number(threads.getRows()[0]?.[0])).toBe(2);
      const ops = await connection.runAndReadAll("SELECT count(*) FROM ops");
      expect(Number(ops.getRows()[0]?.[0])).toBe(0);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});
