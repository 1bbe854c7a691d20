export {
  type DatasetManifest,
  type DatasetPartition,
  MANIFEST_FILE,
  type PartitionBy,
  readManifest,
} from "./dataset-manifest.js";
export { type Column, columnsOfEvent, SQL_TYPE_OF_WIRE, type SqlType } from "./event-columns.js";
export { type ExportParquetOptions, type ExportReport, exportParquet } from "./export-parquet.js";
export type { BeforeStep, ExportStep } from "./export-steps.js";
export type { IngestedRun, RejectedTrace } from "./ingest-trace.js";
export { isDatasetFolder, openDataset } from "./open-dataset.js";
export { partitionFolder } from "./partition-folder.js";
export { SqlError, type SqlErrorCode, type SqlErrorOptions } from "./sql-error.js";
export { DATASET_LAYOUT, DATASET_LAYOUT_V1, TABLES, type Table, type TableName } from "./tables.js";
export {
  type IngestProgress,
  type IngestReport,
  type OpenTraceDatabaseOptions,
  openTraceDatabase,
  type QueryResult,
  type ResultColumn,
  TraceDatabase,
} from "./trace-database.js";
export { VIEWS } from "./views.js";
