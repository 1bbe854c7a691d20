// Folder names of a dataset's partitions (layout cg-dataset/2). A folder name cannot hold every run
// id: 255 bytes at most, no `/`, `.` and `..` reserved, case folded on some file systems, and Hive
// readers give `NULL`, `%xx` and `=` meanings of their own. So the exact value is a column in every
// file, and the folder name only has to be unique: a readable prefix plus a hash of the value.
import { createHash } from "node:crypto";

/** The Hive key of each partition column's folders (not the column's name: the column is in the files). */
export const FOLDER_KEY = { run_id: "run", correlation_id: "correlation" } as const;

export type PartitionColumn = keyof typeof FOLDER_KEY;

/** Readable characters kept from a value; anything else becomes `_`. */
const UNSAFE = /[^A-Za-z0-9_-]/gu;
const READABLE_CHARS = 32;

/**
 * The part after `<key>=`: up to 32 of the value's characters that are safe everywhere, then `_`
 * and 32 lowercase hex digits of its SHA-256 (128 bits). Ids that differ only in case differ in
 * the hash, so they stay apart on a case-insensitive file system. At most 65 bytes.
 */
export function partitionFolderValue(value: string): string {
  const readable = Array.from(value).slice(0, READABLE_CHARS).join("").replace(UNSAFE, "_");
  const hash = createHash("sha256").update(value, "utf8").digest("hex").slice(0, 32);
  return `${readable}_${hash}`;
}

/** `<key>=<readable>_<hash>`, the folder of one partition value. */
export function partitionFolder(column: PartitionColumn, value: string): string {
  return `${FOLDER_KEY[column]}=${partitionFolderValue(value)}`;
}

/** Whether `name` has the shape of a folder `partitionFolder` makes for `column`. */
export function isPartitionFolder(column: PartitionColumn, name: string): boolean {
  return new RegExp(`^${FOLDER_KEY[column]}=[A-Za-z0-9_-]{0,${READABLE_CHARS}}_[0-9a-f]{32}$`).test(name);
}
