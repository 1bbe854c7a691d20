// The README documents the dataset: its schema tables must be the code's, and its DuckDB statement
// must run as written on an exported folder.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { exportParquet, openDataset, TABLES } from "../src/index.js";
import { writeWriterTrace } from "./trace-fixtures.js";

const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");

test("the README's schema is the tables' columns", () => {
  for (const table of TABLES) {
    const lines = [
      `#### \`${table.name}\``,
      "",
      "| Column | Type | Null | From |",
      "| --- | --- | --- | --- |",
    ];
    for (const column of table.columns) {
      lines.push(
        `| \`${column.name}\` | \`${column.type}\` | ${column.nullable ? "yes" : "no"} | ${column.source} |`,
      );
    }
    expect(readme).toContain(lines.join("\n"));
  }
});

test("the README's DuckDB statement runs on a local dataset", async () => {
  const section = readme.slice(readme.indexOf("**DuckDB over object storage**"));
  const block = /```sql\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  // The query itself: the last statement (the ones before it set up httpfs and credentials).
  const query = block.slice(block.lastIndexOf("SELECT ")).trim();
  expect(query).toContain("read_parquet('s3://my-bucket/cg-dataset/ops/**/*.parquet'");
  const workDir = mkdtempSync(join(tmpdir(), "cg-sql-readme-"));
  const outDir = join(workDir, "cg-dataset");
  await exportParquet([writeWriterTrace(join(workDir, "writer.jsonl"))], outDir);
  const dataset = await openDataset(outDir);
  try {
    const result = await dataset.query(query.replace("s3://my-bucket/cg-dataset", outDir));
    expect(result.rows).toEqual([
      ["huge", 1n, 18446744073709551615n],
      ["matmul", 1n, 1200n],
    ]);
  } finally {
    dataset.close();
    rmSync(workDir, { recursive: true, force: true });
  }
});
