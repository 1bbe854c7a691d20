// The column buffers against DuckDB itself: random rows of every column type, over several data
// chunks, some runs dropped part way (as a rejected trace is), must read back exactly.
import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Column, SqlType } from "./event-columns.js";
import { chunkTransferList } from "./ingest-worker-protocol.js";
import { CHUNK_ROWS, TableRows } from "./table-rows.js";
import { ChunkAppender, TableWriter } from "./table-writer.js";
import { createTableSql, type Table } from "./tables.js";

const TYPES: SqlType[] = [
  "VARCHAR",
  "BOOLEAN",
  "DOUBLE",
  "UBIGINT",
  "UINTEGER",
  "UBIGINT[]",
  "VARCHAR[]",
  "MAP(VARCHAR, VARCHAR)",
];

function column(name: string, type: SqlType, nullable: boolean): Column {
  return { name, type, nullable, source: "test" };
}

const TABLE: Table = {
  // Any table name of the dataset would do; the columns are this test's own.
  name: "edges",
  kind: "edge",
  columns: [
    column("run_id", "VARCHAR", false),
    ...TYPES.map((type, index) => column(`c${index}`, type, true)),
  ],
};

const MAX_U64 = 2n ** 64n - 1n;
// Short and long, ASCII and not, U+0000 and the 12-byte inline limit of DuckDB's string record.
const text = fc.oneof(
  fc.string({ maxLength: 14 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom("", "123456789012", "1234567890123", "a\u0000b", "é", "12345678901é", "\u{1F600}"),
);
const u64 = fc.oneof(
  fc.nat(),
  fc.constantFrom(0, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1),
  fc.bigInt({ min: 2n ** 53n, max: MAX_U64 }),
);
const VALUES: Record<SqlType, fc.Arbitrary<unknown>> = {
  VARCHAR: text,
  BOOLEAN: fc.boolean(),
  DOUBLE: fc.double({ noNaN: true }),
  UBIGINT: u64,
  UINTEGER: fc.nat({ max: 2 ** 32 - 1 }),
  "UBIGINT[]": fc.array(u64, { maxLength: 5 }),
  "VARCHAR[]": fc.array(text, { maxLength: 5 }),
  "MAP(VARCHAR, VARCHAR)": fc.dictionary(text, text, { maxKeys: 3 }),
};
const row = fc.record(
  Object.fromEntries(TYPES.map((type, index) => [`c${index}`, fc.option(VALUES[type], { nil: undefined })])),
);
/** Runs of rows; a dropped run is discarded after its rows were pushed. */
const runs = fc.array(
  fc.record({ rows: fc.array(row, { maxLength: 40 }), dropped: fc.boolean(), long: fc.boolean() }),
  { minLength: 1, maxLength: 8 },
);

/** What DuckDB gives back for a value written to a column of `type`. */
function readBack(type: SqlType, value: unknown): unknown {
  if (value === undefined) return null;
  if (type === "UBIGINT") return BigInt(value as number | bigint);
  if (type === "UBIGINT[]") return (value as (number | bigint)[]).map((item) => BigInt(item));
  if (type === "MAP(VARCHAR, VARCHAR)") {
    return Object.entries(value as Record<string, string>).map(([key, entry]) => ({ key, value: entry }));
  }
  if (type === "DOUBLE" && Object.is(value, -0)) return -0;
  return value;
}

let instance: DuckDBInstance;
beforeAll(async () => {
  instance = await DuckDBInstance.create(":memory:");
});
afterAll(() => instance.closeSync());

type Writer = Pick<TableWriter, "rows" | "flush" | "close">;

/**
 * Rows filled as on an ingest's reading thread: each chunk leaves with its buffers, is posted
 * (structured clone, buffers transferred), appended, and its buffers come back the same way to be
 * reused, holding the previous chunk's values.
 */
async function postingWriter(connection: DuckDBConnection, table: Table): Promise<Writer> {
  const appender = await ChunkAppender.open(connection, table);
  const rows: TableRows = new TableRows(
    table,
    (columns, count) => {
      const posted = structuredClone(columns, { transfer: chunkTransferList(columns) });
      appender.append(posted, count);
      rows.recycle(structuredClone(posted, { transfer: chunkTransferList(posted) }));
    },
    { detach: true },
  );
  return {
    rows,
    flush() {
      rows.emit();
      appender.flush();
    },
    close() {
      rows.emit();
      appender.close();
    },
  };
}

describe.each([
  ["on one thread", TableWriter.open],
  ["posted between threads", postingWriter],
])("TableWriter %s", (_, openWriter: (connection: DuckDBConnection, table: Table) => Promise<Writer>) => {
  it("writes every column type exactly, across chunks, without the rows of dropped runs", async () => {
    await fc.assert(
      fc.asyncProperty(runs, async (generated) => {
        const connection = await instance.connect();
        try {
          await connection.run(`DROP TABLE IF EXISTS ${TABLE.name}`);
          await connection.run(createTableSql(TABLE));
          const writer = await openWriter(connection, TABLE);
          const expected: unknown[][] = [];
          for (const [index, run] of generated.entries()) {
            writer.rows.runId = `run-${index}`;
            // A long run crosses chunk boundaries, so a drop may reach rows already in DuckDB.
            const rows = run.long
              ? Array.from({ length: CHUNK_ROWS + 7 }, (_, at) => run.rows[at % run.rows.length] ?? {})
              : run.rows;
            for (const values of rows) writer.rows.push(values);
            if (run.dropped) {
              writer.rows.discardRun();
              writer.flush();
              await connection.run(`DELETE FROM ${TABLE.name} WHERE run_id = $1`, [`run-${index}`]);
              continue;
            }
            for (const values of rows) {
              expected.push([
                `run-${index}`,
                ...TYPES.map((type, column) => readBack(type, values[`c${column}`])),
              ]);
            }
          }
          writer.close();
          const reader = await connection.runAndReadAll(`SELECT * FROM ${TABLE.name} ORDER BY rowid`);
          expect(reader.getRowsJS()).toEqual(expected);
        } finally {
          connection.closeSync();
        }
      }),
      { numRuns: 30 },
    );
  }, 120_000);

  it("refuses rows before a run is set", async () => {
    const connection = await instance.connect();
    try {
      await connection.run(createTableSql(TABLE));
      const writer = await openWriter(connection, TABLE);
      expect(() => writer.rows.push({})).toThrow("rows for edges before the run's meta event");
      writer.close();
    } finally {
      connection.closeSync();
    }
  });
});
