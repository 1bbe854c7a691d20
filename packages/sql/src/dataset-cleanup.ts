// Removes what an export leaves that the manifest does not name: the work folders (`_cg_work-*`),
// temporary manifests, data files of a generation that never committed or whose runs were
// replaced (in partition folders, and the table-level files at the top of a table's folder: the
// runs table's one file of every run), and partition folders left empty. Only names of this layout's own shapes are touched:
// anything else in the folder (a user's stray `ops/run_id=%zz`) is left as it is, and never read.
import { readdir, rm, rmdir } from "node:fs/promises";
import { join } from "node:path";
import { DATA_FILE, type DatasetManifest, MANIFEST_FILE, tableFiles } from "./dataset-manifest.js";
import { isPartitionFolder, type PartitionColumn } from "./partition-folder.js";
import { TABLES } from "./tables.js";

export const WORK_PREFIX = "_cg_work-";

/** Called before each removal, so that tests can stop an export there. */
export type BeforeRemoval = (path: string) => Promise<void> | void;

async function entries(dir: string) {
  return readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return [];
    throw error;
  });
}

/** Relative paths (`<table>/<file>`, `<table>/<path>/<file>`) of every file a cg-dataset/2 manifest names. */
export function namedFiles(manifest: DatasetManifest | undefined): Set<string> {
  const named = new Set<string>();
  for (const table of TABLES) {
    for (const file of tableFiles(manifest, table.name)) named.add(file.path);
  }
  return named;
}

/** Removes the data files at the top of a table's folder that `named` does not hold. */
async function cleanTableLevel(
  dir: string,
  table: string,
  named: ReadonlySet<string>,
  beforeRemoval: BeforeRemoval,
): Promise<void> {
  for (const entry of await entries(dir)) {
    if (!entry.isFile() || !DATA_FILE.test(entry.name) || named.has(`${table}/${entry.name}`)) continue;
    const path = join(dir, entry.name);
    await beforeRemoval(path);
    await rm(path, { force: true });
  }
}

/**
 * Cleans one partition level: recurses into folders of `columns[0]`'s shape, removes data files
 * not in `named`, then the folder itself when nothing is left in it.
 */
async function cleanLevel(
  dir: string,
  relative: string,
  columns: readonly PartitionColumn[],
  named: ReadonlySet<string>,
  beforeRemoval: BeforeRemoval,
): Promise<void> {
  const [column, ...inner] = columns;
  for (const entry of await entries(dir)) {
    const path = join(dir, entry.name);
    const name = `${relative}/${entry.name}`;
    if (column === undefined) {
      if (entry.isFile() && DATA_FILE.test(entry.name) && !named.has(name)) {
        await beforeRemoval(path);
        await rm(path, { force: true });
      }
      continue;
    }
    if (!entry.isDirectory() || !isPartitionFolder(column, entry.name)) continue;
    await cleanLevel(path, name, inner, named, beforeRemoval);
    if ((await entries(path)).length === 0) {
      await beforeRemoval(path);
      await rmdir(path).catch(() => undefined);
    }
  }
}

/**
 * Removes what `manifest` (the committed one, or none) does not name. `keepWork` is the work
 * folder of the export now running, if any.
 */
export async function cleanDataset(
  root: string,
  manifest: DatasetManifest | undefined,
  beforeRemoval: BeforeRemoval,
  keepWork?: string,
): Promise<void> {
  for (const entry of await entries(root)) {
    const path = join(root, entry.name);
    const stale =
      (entry.name.startsWith(WORK_PREFIX) && path !== keepWork) ||
      (entry.name.startsWith(`${MANIFEST_FILE}.tmp-`) && entry.isFile());
    if (stale) {
      await beforeRemoval(path);
      await rm(path, { recursive: true, force: true });
    }
  }
  // A cg-dataset/1 dataset has no files of this layout's shapes; nothing of it is removed.
  const named = namedFiles(manifest);
  const columns: PartitionColumn[] =
    manifest?.partition_by.length === 2 ? ["correlation_id", "run_id"] : ["run_id"];
  for (const table of TABLES) {
    await cleanTableLevel(join(root, table.name), table.name, named, beforeRemoval);
    // Both shapes, when there is no manifest yet: an unfinished first export of either partitioning.
    const shapes: PartitionColumn[][] =
      manifest === undefined ? [["run_id"], ["correlation_id", "run_id"]] : [columns];
    for (const shape of shapes) {
      await cleanLevel(join(root, table.name), table.name, shape, named, beforeRemoval);
    }
  }
}
