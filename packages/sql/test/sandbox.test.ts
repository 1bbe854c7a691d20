// User SQL runs locked down: every way out of the tables (files, network, extensions, settings,
// several statements) fails with one line, while ordinary queries over traces and datasets work.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { exportParquet, openDataset, openTraceDatabase, SqlError, TraceDatabase } from "../src/index.js";
import { writeWriterTrace } from "./trace-fixtures.js";

/** The Parquet files of a table's one partition (a dataset of one run), wherever its folder is. */
function onePartitionFiles(root: string, table: string): string[] {
  const folders = readdirSync(join(root, table), { withFileTypes: true }).filter((entry) =>
    entry.isDirectory(),
  );
  expect(folders).toHaveLength(1);
  const folder = join(root, table, folders[0]!.name);
  return readdirSync(folder)
    .filter((name) => name.endsWith(".parquet"))
    .map((name) => join(folder, name));
}

const workDir = mkdtempSync(join(tmpdir(), "cg-sql-sandbox-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const trace = writeWriterTrace(join(workDir, "run.jsonl"), "sandbox-run");
/** A file outside every input that a query must not read. */
const secret = join(workDir, "secret.txt");
writeFileSync(secret, "s3cr3t\n");
const literal = (path: string) => `'${path.replaceAll("'", "''")}'`;

async function failure(database: TraceDatabase, sql: string): Promise<SqlError> {
  const error = await database.query(sql).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(SqlError.isInstance(error), `${sql} ran`).toBe(true);
  const message = (error as SqlError).message;
  expect(message).not.toContain("\n");
  return error as SqlError;
}

/** The escapes every sandboxed database must refuse, with what the message must say. */
function escapes(outside: string): [string, RegExp][] {
  const target = join(workDir, "written");
  return [
    ["SELECT content FROM read_text('/etc/passwd')", /Permission Error: Cannot access file "\/etc\/passwd"/],
    [`SELECT content FROM read_text(${literal(secret)})`, /Permission Error/],
    [`SELECT * FROM read_text(${literal(`${outside}/../secret.txt`)})`, /Permission Error/],
    [`SELECT * FROM read_csv(${literal(secret)})`, /Permission Error/],
    [`SELECT * FROM ${literal(secret)}`, /query failed: (Permission|Catalog) Error/],
    ["SELECT * FROM glob('/etc/*')", /Permission Error/],
    ["SELECT * FROM read_json('https://example.com/x.json')", /Permission Error/],
    [`COPY (SELECT 1) TO ${literal(`${target}.csv`)}`, /query (refused|failed)/],
    [`EXPORT DATABASE ${literal(target)}`, /query (refused|failed)/],
    [`ATTACH ${literal(`${target}.duckdb`)} AS other`, /query refused: ATTACH statements are not allowed/],
    ["ATTACH ':memory:' AS other", /query refused: ATTACH/],
    ["INSTALL httpfs", /query refused: LOAD statements are not allowed/],
    ["LOAD httpfs", /query refused: LOAD/],
    ["SET enable_external_access = true", /query refused: SET statements are not allowed/],
    ["RESET enable_external_access", /query refused: SET/],
    ["SET lock_configuration = false", /query refused: SET/],
    ["PRAGMA enable_external_access", /query failed/],
    ["CALL enable_logging()", /query refused: CALL/],
    ["SELECT 1; SELECT 2", /query refused: 2 statements given, one per call/],
    ["", /query failed: no SQL statement given/],
    ["-- only a comment ;", /query failed: no SQL statement given/],
    ["SELECT FROM WHERE", /^query failed: Parser Error: syntax error at or near "WHERE"$/],
  ];
}

async function expectLockedDown(database: TraceDatabase, outside: string): Promise<void> {
  for (const [sql, message] of escapes(outside))
    expect((await failure(database, sql)).message).toMatch(message);
  expect(readdirSync(workDir).filter((name) => name.startsWith("written"))).toEqual([]);
  const settings = await database.query(
    "SELECT current_setting('enable_external_access'), current_setting('lock_configuration'), " +
      "current_setting('autoinstall_known_extensions'), current_setting('autoload_known_extensions')",
  );
  expect(settings.rows).toEqual([[false, true, false, false]]);
  // The built-in extensions' functions still work: JSON, and ICU's time zones.
  const loaded = await database.query(
    `SELECT json_extract_string('{"a": "x"}', '$.a'), strftime(TIMESTAMPTZ '2026-01-01 12:00:00+00' AT TIME ZONE 'Asia/Tokyo', '%H')`,
  );
  expect(loaded.rows).toEqual([["x", "21"]]);
}

describe("a database read from traces", () => {
  let database: TraceDatabase;
  beforeAll(async () => {
    database = await openTraceDatabase({ traces: [trace] });
  });
  afterAll(() => database.close());

  test("is sandboxed: no file, network, extension, setting or second statement", async () => {
    expect(database.sandboxed).toBe(true);
    await expectLockedDown(database, workDir);
  });

  test("still answers queries over its tables and views, and in-memory catalog changes", async () => {
    expect((await database.query("SELECT op_name, calls FROM op_stats ORDER BY op_name")).rows).toEqual([
      ["huge", 1n],
      ["matmul", 1n],
    ]);
    expect((await database.query("DESCRIBE ops")).rows.length).toBeGreaterThan(5);
    expect((await database.query("EXPLAIN SELECT * FROM runs")).rows.length).toBe(1);
    const several = await database.query(
      "CREATE TEMP TABLE names AS SELECT DISTINCT op_name FROM ops; SELECT count(*) AS n FROM names",
      { multipleStatements: true },
    );
    expect(several.rows).toEqual([[2n]]);
  });

  test("several statements run in order only when allowed, and each is checked", async () => {
    const refused = await database
      .query("SELECT 1; COPY (SELECT 1) TO 'x.csv'", { multipleStatements: true })
      .then(
        () => undefined,
        (error: unknown) => error as SqlError,
      );
    expect(refused?.message).toMatch(/^query (refused|failed) \(statement 2 of 2\): /);
  });
});

test("allowExternalAccess leaves DuckDB open, for SQL you trust", async () => {
  const database = await openTraceDatabase({ traces: [trace], allowExternalAccess: true });
  try {
    expect(database.sandboxed).toBe(false);
    expect((await database.query(`SELECT content FROM read_text(${literal(secret)})`)).rows).toEqual([
      ["s3cr3t\n"],
    ]);
    await expect(database.query("SELECT 1; SELECT 2")).rejects.toThrow(/one per call/);
  } finally {
    database.close();
  }
});

test("a sandboxed database file still spills, checkpoints and reopens", async () => {
  const path = join(workDir, "traces.duckdb");
  const database = await openTraceDatabase({
    traces: [trace],
    path,
    duckdb: { memory_limit: "32MB", threads: "1" },
  });
  try {
    // Several times the memory limit: DuckDB must spill to its temp folder under the sandbox.
    await database.query("CREATE TEMP TABLE big AS SELECT md5(range::VARCHAR) AS s FROM range(3000000)");
    const sorted = await database.query("SELECT count(*), max(s) FROM (SELECT s FROM big ORDER BY s)");
    expect(sorted.rows).toEqual([[3000000n, "fffffe98d0963d27015c198262d97221"]]);
    expect(
      (await database.query("SELECT count(*) FROM duckdb_temporary_files()")).rows[0]?.[0],
    ).toBeGreaterThan(0n);
    await database.query("CREATE TABLE kept AS SELECT op_name FROM ops");
    await expectLockedDown(database, workDir);
  } finally {
    database.close();
  }
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    expect((await connection.runAndReadAll("SELECT op_name FROM kept")).getRowsJS()).toEqual([
      ["matmul"],
      ["huge"],
    ]);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
});

describe("a dataset", () => {
  const root = join(workDir, "ds");
  /** A sibling whose name starts with the dataset's: the allowed folder must not cover it. */
  const sibling = join(workDir, "ds2");
  let database: TraceDatabase;
  beforeAll(async () => {
    await exportParquet([trace], root);
    mkdirSync(sibling);
    writeFileSync(join(sibling, "other.txt"), "other\n");
    database = await openDataset(root);
    await database.sandbox({ readableDirectories: [root] });
  });
  afterAll(() => database.close());

  test("reads its Parquet files through the views and nothing else", async () => {
    expect(
      (await database.query("SELECT run_id, op_name, calls FROM op_stats ORDER BY op_name")).rows,
    ).toEqual([
      ["sandbox-run", "huge", 1n],
      ["sandbox-run", "matmul", 1n],
    ]);
    await expectLockedDown(database, root);
    expect(
      (await failure(database, `SELECT * FROM read_text(${literal(join(sibling, "other.txt"))})`)).message,
    ).toMatch(/Permission Error/);
  });

  test("its files cannot be overwritten by a query", async () => {
    const path = onePartitionFiles(root, "ops")[0]!;
    const before = readFileSync(path);
    const refused = await failure(database, `COPY (SELECT 1 AS x) TO ${literal(path)} (FORMAT parquet)`);
    expect(refused.message).toMatch(/^query refused: COPY statements are not allowed in the sandbox/);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(existsSync(join(root, "x.duckdb"))).toBe(false);
    await failure(database, `ATTACH ${literal(join(root, "x.duckdb"))}`);
    expect(existsSync(join(root, "x.duckdb"))).toBe(false);
  });
});

test("a view over a list of files, sandboxed to exactly those files, reads them and nothing beside them", async () => {
  // How a dataset's views can be scoped to the files they name, whatever the folder is called.
  const root = join(workDir, "ds*[x]");
  await exportParquet([trace], root);
  const files = onePartitionFiles(root, "ops");
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  const database = new TraceDatabase(instance, connection, { runs: [], rejected: [] });
  try {
    await connection.run(
      // The run id is a column of each file (cg-dataset/2), not taken from the folder's name.
      `CREATE VIEW ops AS SELECT * FROM read_parquet([${files.map(literal).join(", ")}])`,
    );
    await database.sandbox({ readableFiles: files });
    expect((await database.query("SELECT run_id, count(*) FROM ops GROUP BY ALL")).rows).toEqual([
      ["sandbox-run", 2n],
    ]);
    expect(
      (await failure(database, `SELECT * FROM read_text(${literal(join(root, "_cg_dataset.json"))})`))
        .message,
    ).toMatch(/Permission Error/);
    await database.sandbox({ readableDirectories: [root] });
    expect(
      (await failure(database, `SELECT * FROM read_text(${literal(join(root, "_cg_dataset.json"))})`))
        .message,
    ).toMatch(/Permission Error/);
  } finally {
    database.close();
  }
});
