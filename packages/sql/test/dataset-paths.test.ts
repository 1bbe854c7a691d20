// Dataset roots whose names are glob syntax to DuckDB (`*`, `?`, `[x]`) or hold a `\` read exactly
// their own files, beside siblings those patterns would match; a cg-dataset/1 dataset (Hive folders
// named by the values) is still read, also from such a root; a killed first export is named so.
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import {
  DATASET_LAYOUT_V1,
  exportParquet,
  isDatasetFolder,
  MANIFEST_FILE,
  openDataset,
  openTraceDatabase,
  TABLES,
} from "../src/index.js";
import { quoteIdentifier, quoteLiteral } from "../src/tables.js";
import { tinyTrace } from "./dataset-snapshot.js";

const workDir = mkdtempSync(join(tmpdir(), "cg-sql-paths-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

function trace(runId: string): string {
  const path = join(workDir, `${runId.replace(/[^a-z0-9]/gi, "_")}-${runId.length}.jsonl`);
  writeFileSync(path, tinyTrace(runId, "c"));
  return path;
}

async function runIds(dir: string): Promise<string[]> {
  const dataset = await openDataset(dir);
  try {
    return (await dataset.query("SELECT run_id FROM runs ORDER BY 1")).rows.map((row) => row[0] as string);
  } finally {
    dataset.close();
  }
}

// Each name, and a sibling its glob reading would also match.
const NAMES = ["ds*", "dsA", "ds[x]", "dsx", "ds?z", "dsQz", "ds\\y", "ds{a,b}", "dsa"];

test("a dataset root that is glob syntax reads exactly its own files", async () => {
  for (const name of NAMES) await exportParquet([trace(`run in ${name}`)], join(workDir, name));
  for (const name of NAMES) expect(await runIds(join(workDir, name)), name).toEqual([`run in ${name}`]);
}, 300_000);

test("a cg-dataset/1 dataset is read as before, from a root with glob syntax too", async () => {
  const root = join(workDir, "v1[old]*");
  const plain = join(workDir, "v1-plain");
  mkdirSync(plain);
  // Writing the old layout takes COPY, which a sandboxed database refuses.
  const reference = await openTraceDatabase({
    traces: [trace("v1-a"), trace("v1-b")],
    allowExternalAccess: true,
  });
  try {
    // The first layout as its exporter wrote it: Hive folders named by the values, no ids in files.
    for (const table of TABLES) {
      await reference.connection.run(
        `COPY (SELECT * FROM ${quoteIdentifier(table.name)}) TO ${quoteLiteral(join(plain, table.name))} ` +
          "(FORMAT parquet, PARTITION_BY (run_id), OVERWRITE_OR_IGNORE, FILENAME_PATTERN 'data_{i}')",
      );
    }
  } finally {
    reference.close();
  }
  renameSync(plain, root);
  writeFileSync(
    join(root, MANIFEST_FILE),
    JSON.stringify({ layout: DATASET_LAYOUT_V1, partition_by: ["run_id"], tables: [] }),
  );
  // A sibling the unescaped pattern would have read.
  await exportParquet([trace("sibling")], join(workDir, "v1o"));
  expect(await runIds(root)).toEqual(["v1-a", "v1-b"]);
  await expect(exportParquet([trace("v1-c")], root)).rejects.toThrow(
    /a cg-dataset\/1 dataset, which this version reads but does not add to/,
  );
});

test("a killed first export is named as such, not as a folder without traces", async () => {
  const dir = join(workDir, "unfinished");
  mkdirSync(join(dir, "_cg_work-g000001-0badf00d"), { recursive: true });
  expect(await isDatasetFolder(dir)).toBe(true);
  await expect(openDataset(dir)).rejects.toThrow(/the first export into this folder did not finish/);
  // And exporting again finishes it.
  await exportParquet([trace("again")], dir);
  expect(await runIds(dir)).toEqual(["again"]);
});

test("a manifest naming a missing file or a path outside the dataset fails with the file named", async () => {
  const dir = join(workDir, "tampered");
  await exportParquet([trace("t")], dir);
  const manifest = JSON.parse((await import("node:fs")).readFileSync(join(dir, MANIFEST_FILE), "utf8"));
  const files = manifest.partitions[0].files;
  files.ops = ["g000001-00000000-0.parquet"];
  writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(manifest));
  await expect(openDataset(dir)).rejects.toThrow(
    /ops\/run=t_[0-9a-f]{32}\/g000001-00000000-0\.parquet: named by/,
  );
  manifest.partitions[0].path = "../../etc";
  writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(manifest));
  await expect(openDataset(dir)).rejects.toThrow(
    /partitions\[0\]\.path "\.\.\/\.\.\/etc" is not a partition folder/,
  );
});
