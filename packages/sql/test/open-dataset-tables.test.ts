// openDataset with `tables`: the named tables read their files, the others are empty tables with
// the layout's columns (so the ready-made views still bind), and every answer about the named
// tables is the one the whole dataset gives.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { exportParquet, openDataset, TABLES } from "../src/index.js";
import { writeWriterTrace } from "./trace-fixtures.js";

const workDir = mkdtempSync(join(tmpdir(), "cg-sql-open-tables-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));
const dir = join(workDir, "dataset");

beforeAll(async () => {
  await exportParquet(
    ["run-a", "run-b"].map((run) => writeWriterTrace(join(workDir, `${run}.jsonl`), run)),
    dir,
  );
}, 120_000);

async function counts(options?: Parameters<typeof openDataset>[1]): Promise<Record<string, bigint>> {
  const dataset = await openDataset(dir, options);
  try {
    const found: Record<string, bigint> = {};
    for (const name of [...TABLES.map((table) => table.name), "op_stats", "step_times", "memory_peaks"]) {
      const { rows } = await dataset.query(`SELECT count(*) FROM "${name}"`);
      found[name] = rows[0]?.[0] as bigint;
    }
    return found;
  } finally {
    dataset.close();
  }
}

test("only runs and ops: those read as in the whole dataset, the other tables are empty", async () => {
  const whole = await counts();
  const some = await counts({ tables: ["runs", "ops"] });
  expect(whole.spans).toBeGreaterThan(0n);
  expect(whole.memory).toBeGreaterThan(0n);
  expect(some.runs).toBe(whole.runs);
  expect(some.ops).toBe(whole.ops);
  expect(some.op_stats).toBe(whole.op_stats);
  expect(some.step_times).toBe(whole.step_times);
  for (const table of TABLES) {
    if (table.name !== "runs" && table.name !== "ops") expect(some[table.name], table.name).toBe(0n);
  }
  expect(some.memory_peaks).toBe(0n);
});

test("a table left out keeps its columns", async () => {
  const whole = await openDataset(dir);
  const some = await openDataset(dir, { tables: ["runs"] });
  try {
    const columns = async (database: typeof whole) =>
      (await database.query(`SELECT * FROM spans LIMIT 0`)).columns;
    expect(await columns(some)).toEqual(await columns(whole));
  } finally {
    whole.close();
    some.close();
  }
});
