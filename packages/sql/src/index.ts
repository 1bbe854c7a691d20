export { type DatasetManifest, MANIFEST_FILE, type PartitionBy, readManifest } from "./dataset-manifest.js";
export { type Column, columnsOfEvent, SQL_TYPE_OF_WIRE, type SqlType } from "./event-columns.js";
export { type ExportParquetOptions, type ExportReport, exportParquet } from "./export-parquet.js";
export type { IngestProgress } from "./ingest-progress.js";
export type { IngestedRun, RejectedTrace } from "./ingest-trace.js";
export { openDataset } from "./open-dataset.js";
export { SqlError, type SqlErrorCode, type SqlErrorOptions } from "./sql-error.js";
export { DATASET_LAYOUT, TABLES, type Table, type TableName } from "./tables.js";
export {
  type IngestReport,
  type OpenTraceDatabaseOptions,
  openTraceDatabase,
  type QueryResult,
  type ResultColumn,
  TraceDatabase,
} from "./trace-database.js";
export { VIEWS } from "./views.js";
