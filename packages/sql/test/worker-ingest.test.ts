// The ingest on two threads (a worker reads and fills the chunks, this thread appends them) against
// the ingest on one thread over the same inputs: the same report, the same progress, and every
// table with the same rows in the same order; a rejected trace leaves no row behind even when its
// rows already reached DuckDB, and its error names the file and line. A reading thread that
// reaches its heap limit is replaced by a read on this thread.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseTrace, TraceParseError } from "@cg/parser";
import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { afterAll, describe, expect, test } from "vitest";
import { type IngestProgress, openTraceDatabase, SqlError, TABLES } from "../src/index.js";
import { ingestOnWorker } from "../src/ingest-on-worker.js";
import { createSchema, ingestTraces } from "../src/trace-database.js";
import { brokenFixtures, manyChunksTrace, readableFixtures, writeWriterTrace } from "./trace-fixtures.js";

const workDir = mkdtempSync(join(tmpdir(), "cg-sql-worker-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const writerTrace = writeWriterTrace(join(workDir, "writer.jsonl"));
// Tens of data chunks per table: more than the chunks the worker may have in flight.
const large = join(workDir, "large.jsonl");
writeFileSync(large, manyChunksTrace(20_000, "large"));
// Thousands of good rows (several chunks already appended), then a defect.
const brokenLarge = join(workDir, "broken-large.jsonl");
writeFileSync(brokenLarge, `${manyChunksTrace(6_000, "broken-large")}{"kind":"op","span_id":"root"}\n`);
const duplicate = join(workDir, "writer-again.jsonl");
copyFileSync(writerTrace, duplicate);
const inputs = [...readableFixtures, writerTrace, large, ...brokenFixtures, brokenLarge, duplicate];

async function tablesOf(worker: boolean) {
  const progress: IngestProgress[] = [];
  const database = await openTraceDatabase({
    traces: inputs,
    worker,
    onProgress: (step) => progress.push(step),
  });
  try {
    const tables: Record<string, unknown[][]> = {};
    for (const table of TABLES) {
      tables[table.name] = (await database.query(`SELECT * FROM "${table.name}" ORDER BY rowid`)).rows;
    }
    return { report: database.report, progress, tables };
  } finally {
    database.close();
  }
}

describe("an ingest on a worker thread", async () => {
  const [one, two] = [await tablesOf(false), await tablesOf(true)];

  test("reports the same runs, rejections and progress as one thread", () => {
    expect(two.report).toEqual(one.report);
    expect(two.progress).toEqual(one.progress);
    expect(one.report.runs.map((run) => run.run_id)).toContain("large");
    expect(one.report.rejected.map((rejected) => rejected.file)).toEqual(
      expect.arrayContaining([...brokenFixtures, brokenLarge, duplicate]),
    );
  });

  test.each(TABLES.map((table) => table.name))("holds the same %s rows in the same order", (name) => {
    expect(two.tables[name]).toEqual(one.tables[name]);
  });

  test("keeps no row of a rejected run, though its first chunks were appended", () => {
    expect(one.tables.ops?.filter((row) => row[0] === "large").length).toBeGreaterThan(16 * 2048);
    for (const rows of Object.values(two.tables)) {
      expect(rows.filter((row) => row[0] === "broken-large")).toEqual([]);
    }
  });

  test("names the file and line of a defect", async () => {
    const expected = await parseTrace(brokenLarge).catch((error: unknown) => error);
    expect(TraceParseError.isInstance(expected)).toBe(true);
    const { line, message, code } = expected as TraceParseError;
    expect(two.report.rejected).toContainEqual({ file: brokenLarge, line, code, message });
    const failure = await openTraceDatabase({
      traces: [large, brokenLarge],
      worker: true,
      strict: true,
    }).catch((error: unknown) => error);
    expect(SqlError.isInstance(failure)).toBe(true);
    expect((failure as SqlError).message).toBe(`${brokenLarge}:${line}: ${message}`);
    expect((failure as SqlError).file).toBe(brokenLarge);
  });
});

describe("a reading thread that reaches its heap limit", () => {
  // Far below what reading these traces (or even loading the reader) needs.
  const tinyHeap = { maxOldGenerationSizeMb: 4 };
  const files = [writerTrace, large, brokenLarge];

  async function withConnection<Result>(use: (connection: DuckDBConnection) => Promise<Result>) {
    const instance = await DuckDBInstance.create(":memory:");
    const connection = await instance.connect();
    try {
      await createSchema(connection);
      return await use(connection);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  }

  async function ingested(connection: DuckDBConnection, options: Parameters<typeof ingestTraces>[2]) {
    const report = await ingestTraces(connection, files, options);
    const tables: Record<string, unknown[][]> = {};
    for (const table of TABLES) {
      const reader = await connection.runAndReadAll(`SELECT * FROM "${table.name}" ORDER BY rowid`);
      tables[table.name] = reader.getRowsJS();
    }
    return { report, tables };
  }

  test("stops the reading thread with the worker's out-of-memory error", async () => {
    const failure = await withConnection((connection) =>
      ingestOnWorker(connection, files, { readingHeap: tinyHeap }).catch((error: unknown) => error),
    );
    expect((failure as { code?: string }).code).toBe("ERR_WORKER_OUT_OF_MEMORY");
  });

  test("is replaced by a read on this thread: the same report and rows as one thread", async () => {
    const expected = await withConnection((connection) => ingested(connection, { worker: false }));
    const actual = await withConnection((connection) =>
      ingested(connection, { worker: true, readingHeap: tinyHeap }),
    );
    expect(actual.report).toEqual(expected.report);
    expect(actual.report.runs.map((run) => run.run_id)).toContain("large");
    for (const table of TABLES) expect(actual.tables[table.name]).toEqual(expected.tables[table.name]);
    // Two whole ingests and a worker that runs out of heap: on a loaded two-core machine this takes
    // well past the package's 30 s default (44 s measured), with nothing wrong.
  }, 180_000);
});
