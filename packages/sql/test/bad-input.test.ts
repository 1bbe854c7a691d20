// Bad input: each problem is reported with the file (and line) and the reader's message; nothing
// is dropped silently and no partial run stays in the tables.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseTrace, TraceParseError } from "@cg/parser";
import { afterAll, describe, expect, test } from "vitest";
import { openTraceDatabase, SqlError, TABLES } from "../src/index.js";
import { brokenFixtures, readableFixtures, writeWriterTrace } from "./trace-fixtures.js";

const workDir = mkdtempSync(join(tmpdir(), "cg-sql-bad-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

async function parserError(file: string): Promise<TraceParseError> {
  try {
    await parseTrace(file);
  } catch (error) {
    if (TraceParseError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`${file} parsed`);
}

describe("a broken trace among good ones", () => {
  const dir = join(workDir, "mixed");
  mkdirSync(dir);
  const good = writeWriterTrace(join(dir, "a-good.jsonl"), "good-1");
  const other = writeWriterTrace(join(dir, "c-good.jsonl"), "good-2");
  // Good lines first, then a defect: the rows read before it must not stay.
  const broken = join(dir, "b-broken.jsonl");
  writeWriterTrace(broken, "broken-1");
  writeFileSync(broken, '{"kind":"op","span_id":"s1"}\n', { flag: "a" });

  test("is reported with the parser's file, line and message and leaves no row", async () => {
    const database = await openTraceDatabase({ traces: [dir] });
    try {
      const expected = await parserError(broken);
      expect(database.report.runs.map((run) => run.run_id)).toEqual(["good-1", "good-2"]);
      expect(database.report.rejected).toEqual([
        { file: broken, line: expected.line, code: expected.code, message: expected.message },
      ]);
      expect(expected.line).toBeGreaterThan(1);
      for (const table of TABLES) {
        const result = await database.query(`SELECT DISTINCT run_id FROM "${table.name}" ORDER BY run_id`);
        for (const [runId] of result.rows) expect(["good-1", "good-2"]).toContain(runId);
      }
    } finally {
      database.close();
    }
    expect(good).not.toBe(other);
  });

  test("fails the whole call with strict", async () => {
    const expected = await parserError(broken);
    const failure = await openTraceDatabase({ traces: [dir], strict: true }).catch((error: unknown) => error);
    expect(SqlError.isInstance(failure)).toBe(true);
    expect((failure as SqlError).message).toBe(`${broken}:${expected.line}: ${expected.message}`);
    expect((failure as SqlError).file).toBe(broken);
  });
});

test.each(brokenFixtures)(
  "the shared negative fixture %s is rejected with the parser's message",
  async (file) => {
    const expected = await parserError(file);
    const database = await openTraceDatabase({ traces: [file] });
    try {
      expect(database.report.rejected.map(({ message, code }) => ({ message, code }))).toEqual([
        { message: expected.message, code: expected.code },
      ]);
      expect(database.report.runs).toEqual([]);
    } finally {
      database.close();
    }
  },
);

test("an untrusted trace is kept and marked", async () => {
  const database = await openTraceDatabase({ traces: readableFixtures });
  try {
    const untrusted = await database.query(
      "SELECT count(*) FROM runs WHERE NOT trusted AND len(error_codes) > 0",
    );
    const all = database.report.runs.filter((run) => !run.trusted).length;
    expect(all).toBeGreaterThan(0);
    expect(untrusted.rows).toEqual([[BigInt(all)]]);
  } finally {
    database.close();
  }
});

test("an empty folder, a missing path, a glob without match", async () => {
  const empty = join(workDir, "empty");
  mkdirSync(empty);
  await expect(openTraceDatabase({ traces: [empty] })).rejects.toThrow(
    `${empty}: the folder holds no .jsonl trace`,
  );
  await expect(openTraceDatabase({ traces: [join(workDir, "nope.jsonl")] })).rejects.toThrow(
    /nope\.jsonl: no such file or folder/,
  );
  await expect(openTraceDatabase({ traces: [join(workDir, "none-*.jsonl")] })).rejects.toThrow(
    /none-\*\.jsonl: no such file or folder \(a pattern\? --glob matches it\)/,
  );
  await expect(openTraceDatabase({ traces: [join(workDir, "none-*.jsonl")], glob: true })).rejects.toThrow(
    /the pattern matches no file/,
  );
  await expect(openTraceDatabase({ traces: [] })).rejects.toThrow("no traces given");
});

test("a path that is not a trace is reported with the parser's message", async () => {
  const notATrace = join(workDir, "notes.txt");
  writeFileSync(notATrace, "these are notes, not a trace\n");
  const png = join(workDir, "picture.png");
  writeFileSync(png, Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe]));
  const database = await openTraceDatabase({ traces: [notATrace, png] });
  try {
    expect(database.report.rejected.map((rejected) => rejected.file)).toEqual([notATrace, png]);
    expect(database.report.rejected[0]?.message).toBe((await parserError(notATrace)).message);
    expect(database.report.rejected[1]?.message).toBe((await parserError(png)).message);
  } finally {
    database.close();
  }
});

test("the same run read twice is reported, not duplicated", async () => {
  const first = writeWriterTrace(join(workDir, "dup-a.jsonl"), "dup-run");
  const second = join(workDir, "dup-b.jsonl");
  copyFileSync(first, second);
  const database = await openTraceDatabase({ traces: [first, second] });
  try {
    expect(database.report.rejected).toEqual([
      {
        file: second,
        code: "duplicate_run",
        message: `${second}: run dup-run was already read from ${first}`,
      },
    ]);
    expect((await database.query("SELECT count(*) FROM ops")).rows).toEqual([[2n]]);
  } finally {
    database.close();
  }
});

test("a query error is an SqlError with DuckDB's message", async () => {
  const database = await openTraceDatabase({ traces: [readableFixtures[0] as string] });
  try {
    const failure = await database.query("SELECT no_such_column FROM ops").catch((error: unknown) => error);
    expect(SqlError.isInstance(failure)).toBe(true);
    expect((failure as SqlError).code).toBe("query_failed");
    expect((failure as SqlError).message).toMatch(/no_such_column/);
  } finally {
    database.close();
  }
});

test("with glob, a pattern reads the files it matches, once each", async () => {
  const dir = join(workDir, "globbed");
  mkdirSync(dir);
  writeWriterTrace(join(dir, "rank-0.jsonl"), "glob-0");
  writeWriterTrace(join(dir, "rank-1.jsonl"), "glob-1");
  writeFileSync(join(dir, "notes.txt"), "not matched\n");
  const database = await openTraceDatabase({
    traces: [join(dir, "rank-*.jsonl"), join(dir, "rank-0.jsonl")],
    glob: true,
  });
  try {
    expect(database.report.runs.map((run) => run.run_id)).toEqual(["glob-0", "glob-1"]);
    expect(database.report.rejected).toEqual([]);
  } finally {
    database.close();
  }
});

test("a database file DuckDB cannot create is one SqlError naming it, not DuckDB's raw error", async () => {
  const path = join(workDir, "no-such-folder", "traces.duckdb");
  const failure = await openTraceDatabase({ traces: [readableFixtures[0] as string], path }).catch(
    (error: unknown) => error,
  );
  expect(SqlError.isInstance(failure)).toBe(true);
  expect((failure as SqlError).code).toBe("duckdb_failed");
  expect((failure as SqlError).file).toBe(path);
  expect((failure as SqlError).message).toMatch(
    new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: IO Error: `),
  );
  expect((failure as SqlError).message).not.toContain("\n");
});
