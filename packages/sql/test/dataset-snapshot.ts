// What a dataset reads as, through `openDataset`: every table's rows in a stable order, as text.
// Two snapshots are equal exactly when every reader of the dataset sees the same data.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { type DatasetManifest, MANIFEST_FILE, openDataset, TABLES } from "../src/index.js";

export async function snapshot(root: string): Promise<string> {
  const dataset = await openDataset(root);
  try {
    const tables: Record<string, string> = {};
    for (const table of TABLES) {
      const { rows } = await dataset.query(`SELECT * FROM "${table.name}" ORDER BY ALL`);
      tables[table.name] = JSON.stringify(rows, (_, value) =>
        typeof value === "bigint" ? `${value}n` : value,
      );
    }
    return JSON.stringify(tables);
  } finally {
    dataset.close();
  }
}

/** Every file and folder below `root`, relative, sorted. */
export function treeOf(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      found.push(relative(root, path) + (entry.isDirectory() ? "/" : ""));
      if (entry.isDirectory()) walk(path);
    }
  };
  walk(root);
  return found.sort();
}

/** The data files the manifest names, relative to the root, sorted. */
export function namedFiles(root: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, MANIFEST_FILE), "utf8")) as DatasetManifest;
  const files: string[] = [];
  for (const [table, names] of Object.entries(manifest.table_files ?? {})) {
    for (const name of names ?? []) files.push(join(table, name));
  }
  for (const partition of manifest.partitions ?? []) {
    for (const [table, names] of Object.entries(partition.files)) {
      for (const name of names ?? []) files.push(join(table, partition.path, name));
    }
  }
  return files.sort();
}

/** Data files below `root` (any `.parquet`), relative, sorted. */
export function parquetFilesBelow(root: string): string[] {
  return treeOf(root).filter((path) => path.endsWith(".parquet"));
}

/** A minimal valid trace whose ids are any strings (JSON-escaped as the wire wants). */
export function tinyTrace(runId: string, correlationId: string, ops = 1): string {
  const lines = [
    JSON.stringify({
      kind: "meta",
      schema: "candle-graph/trace/6",
      run_id: runId,
      correlation_id: correlationId,
      entrypoint: "e",
      phase: "train",
      timestamp: "t",
      capture_step: 1,
      warmup_steps: 0,
      device: "cuda:0",
      timing_mode: "host",
      tags: { k: "v" },
    }),
    '{"kind":"span_start","id":"root","name":"train","start_ns":0,"span_kind":"function","measured":true}',
  ];
  for (let op = 0; op < ops; op++) {
    lines.push(
      `{"kind":"op","span_id":"root","op_name":"matmul","inputs":[],"shape":[2,3],"dtype":"f32","device":"cuda:0","duration_ns":18446744073709551615,"timestamp_ns":${op + 1}}`,
    );
  }
  lines.push(`{"kind":"span_end","id":"root","duration_ns":${ops + 10}}`);
  return `${lines.join("\n")}\n`;
}
