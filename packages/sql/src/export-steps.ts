// The steps of an export, in order, each announced before it runs. A caller's hook that throws
// there (or kills the process) stops the export at exactly that point: how the tests prove that
// every point leaves the old dataset or the new one, never a mix.
import type { TableName } from "./tables.js";

export type ExportStep =
  /** Reading the traces into the work folder's database. */
  | { kind: "ingest" }
  /** Writing one table's Parquet file of one partition into the work folder. */
  | { kind: "write"; table: TableName; partition: string }
  /** Flushing one partition's files of one table and moving them into the dataset (not yet named). */
  | { kind: "move"; table: TableName; partition: string }
  /** Writing a table's one file of every run (kept and new) into the work folder. */
  | { kind: "write-table"; table: TableName }
  /** Flushing that file and moving it to the top of the table's folder (not yet named). */
  | { kind: "move-table"; table: TableName }
  /** Flushing the folders that gained files. */
  | { kind: "sync-folders" }
  /** Writing the new manifest: the one atomic step that makes the new data visible. */
  | { kind: "commit" }
  /** Removing one thing the committed manifest does not name (before or after the commit). */
  | { kind: "cleanup"; path: string };

export type BeforeStep = (step: ExportStep) => Promise<void> | void;

export function describeStep(step: ExportStep): string {
  switch (step.kind) {
    case "ingest":
      return "reading the traces";
    case "write":
      return `writing table ${step.table} partition ${step.partition}`;
    case "move":
      return `moving table ${step.table} partition ${step.partition}`;
    case "write-table":
      return `writing table ${step.table} (every run)`;
    case "move-table":
      return `moving table ${step.table} (every run)`;
    case "sync-folders":
      return "flushing the folders";
    case "commit":
      return "writing the manifest";
    case "cleanup":
      return `removing ${step.path}`;
  }
}
