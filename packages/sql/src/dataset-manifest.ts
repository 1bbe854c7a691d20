// `_cg_dataset.json`: the record at a dataset's root of the layout version, the partitioning and
// every table's columns. Readers check the version before they trust the layout.
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SqlError } from "./sql-error.js";
import { DATASET_LAYOUT, TABLES } from "./tables.js";

export const MANIFEST_FILE = "_cg_dataset.json";

export type PartitionBy = "run_id" | "correlation_id";

export interface DatasetManifest {
  layout: string;
  /** Hive partition columns of every table, outermost first. */
  partition_by: string[];
  tables: { name: string; columns: { name: string; type: string; nullable: boolean }[] }[];
}

export function partitionColumns(partitionBy: PartitionBy): string[] {
  return partitionBy === "run_id" ? ["run_id"] : ["correlation_id", "run_id"];
}

export function manifestFor(partitionBy: PartitionBy): DatasetManifest {
  return {
    layout: DATASET_LAYOUT,
    partition_by: partitionColumns(partitionBy),
    tables: TABLES.map((table) => ({
      name: table.name,
      columns: table.columns.map(({ name, type, nullable }) => ({ name, type, nullable })),
    })),
  };
}

/** The manifest of a dataset folder, `undefined` when the folder has none. */
export async function readManifest(dir: string): Promise<DatasetManifest | undefined> {
  const path = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  let manifest: DatasetManifest;
  try {
    manifest = JSON.parse(text) as DatasetManifest;
  } catch (error) {
    throw new SqlError({
      message: `${path}: not JSON (${String(error)})`,
      code: "dataset_layout",
      file: path,
    });
  }
  if (manifest.layout !== DATASET_LAYOUT) {
    throw new SqlError({
      message: `${path}: dataset layout ${JSON.stringify(manifest.layout)} is not ${DATASET_LAYOUT}, the layout this version reads`,
      code: "dataset_layout",
      file: path,
    });
  }
  if (!Array.isArray(manifest.partition_by) || manifest.partition_by.at(-1) !== "run_id") {
    throw new SqlError({
      message: `${path}: partition_by must end with run_id`,
      code: "dataset_layout",
      file: path,
    });
  }
  return manifest;
}

export async function writeManifest(dir: string, manifest: DatasetManifest): Promise<void> {
  const path = join(dir, MANIFEST_FILE);
  await writeFile(`${path}.tmp`, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(`${path}.tmp`, path);
}
