// Every shared fixture and a writer-made trace, read into the tables: every row of every table
// equals what the parser's document says (counts, every column, exact u64).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { openTraceDatabase, TABLES, type TraceDatabase } from "../src/index.js";
import {
  expectedRows,
  NON_ASCII_TAG,
  parseFile,
  type Row,
  readableFixtures,
  SATURATED,
  writeWriterTrace,
} from "./trace-fixtures.js";

const workDir = mkdtempSync(join(tmpdir(), "cg-sql-round-trip-"));
const writerTrace = writeWriterTrace(join(workDir, "writer.jsonl"));

/** Columns the document has no figure for (checked on their own below). */
const NOT_IN_DOCUMENT = new Set(["events", "peak_device"]);

async function tableRows(database: TraceDatabase, table: string): Promise<Row[]> {
  const result = await database.query(`SELECT * FROM "${table}" ORDER BY rowid`);
  return result.rows.map((values) => {
    const row: Row = {};
    result.columns.forEach((column, index) => {
      if (!NOT_IN_DOCUMENT.has(column.name)) row[column.name] = values[index];
    });
    return row;
  });
}

const opened: TraceDatabase[] = [];
afterAll(() => {
  for (const database of opened) database.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe.each([...readableFixtures, writerTrace])("%s", (file) => {
  test("every table equals the parsed document", async () => {
    const database = await openTraceDatabase({ traces: [file] });
    opened.push(database);
    const parsed = await parseFile(file).then(
      (document) => ({ document }),
      (error: Error) => ({ error }),
    );
    if ("error" in parsed) {
      // The tables follow the reader: a file it rejects is reported with its message, no row kept.
      expect(database.report.rejected.map((rejected) => rejected.message)).toEqual([parsed.error.message]);
      for (const table of TABLES) expect(await tableRows(database, table.name), table.name).toEqual([]);
      return;
    }
    expect(database.report.rejected).toEqual([]);
    const { document } = parsed;
    const expected = expectedRows(document, file);
    for (const table of TABLES) {
      const rows = await tableRows(database, table.name);
      const want = expected[table.name].map((row) => {
        const copy = { ...row };
        for (const name of NOT_IN_DOCUMENT) delete copy[name];
        return copy;
      });
      expect(rows, table.name).toEqual(want);
    }
    const [run] = (await database.query("SELECT events FROM runs")).rows;
    expect(run?.[0]).toBe(BigInt(database.report.runs[0]?.events ?? -1));
  });
});

test("the writer-made trace keeps a saturated u64, a non-ASCII tag and NULL for absent fields", async () => {
  const database = await openTraceDatabase({ traces: [writerTrace] });
  opened.push(database);
  const huge = await database.query(
    "SELECT duration_ns, storage_bytes, shape, output FROM ops WHERE op_name = 'huge'",
  );
  expect(huge.rows).toEqual([[SATURATED, SATURATED, [SATURATED], null]]);
  expect(huge.columns.map((column) => column.type)).toEqual(["UBIGINT", "UBIGINT", "UBIGINT[]", "VARCHAR"]);
  const tag = await database.query("SELECT tags['model'], candle_version FROM runs");
  expect(tag.rows).toEqual([[NON_ASCII_TAG, null]]);
  const norm = await database.query("SELECT key, norm FROM gradients ORDER BY key");
  expect(norm.rows).toEqual([
    ["dense.bias", null],
    ["dense.weight", 0.5],
  ]);
  const reserved = await database.query("SELECT reserved_bytes FROM device_memory");
  expect(reserved.rows).toEqual([[null]]);
});
