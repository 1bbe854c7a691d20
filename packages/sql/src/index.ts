export {
  type DatasetManifest,
  type DatasetPartition,
  MANIFEST_FILE,
  type PartitionBy,
  readManifest,
} from "./dataset-manifest.js";
export { type Column, columnsOfEvent, SQL_TYPE_OF_WIRE, type SqlType } from "./event-columns.js";
export type { ExpandInputsOptions, SkippedInput } from "./expand-inputs.js";
export { type ExportParquetOptions, type ExportReport, exportParquet } from "./export-parquet.js";
export type { BeforeStep, ExportStep } from "./export-steps.js";
export type { IngestProgress } from "./ingest-progress.js";
export type { IngestedRun, RejectedTrace } from "./ingest-trace.js";
export { isDatasetFolder, type OpenDatasetOptions, openDataset } from "./open-dataset.js";
export { partitionFolder } from "./partition-folder.js";
export { RegressError, type RegressErrorCode, type RegressErrorOptions } from "./regress-error.js";
export {
  DEFAULT_BASELINE_RUNS,
  DEFAULT_CANDIDATE_RUNS,
  type RegressMetric,
  type RegressMetricKind,
  type RegressOptions,
  type RegressReport,
  regressFleet,
} from "./regress-fleet.js";
export {
  DEFAULT_TOP_OPERATORS,
  type RunFilter,
  type RunOrder,
  type RunPoint,
  type RunSeries,
  readRunSeries,
  type SeriesOptions,
} from "./regress-series.js";
export {
  MAD_TO_SIGMA,
  mannWhitneyU,
  median,
  medianAbsoluteDeviation,
  minimumBaselineRuns,
  type RankTest,
} from "./regress-stats.js";
export {
  DEFAULT_ALPHA,
  DEFAULT_BAND_K,
  judgeWindows,
  type MetricVerdict,
  type RegressThreshold,
  type VerdictOptions,
  type VerdictStatus,
} from "./regress-verdict.js";
export { lockDown, type SandboxScope } from "./sandbox.js";
export { SqlError, type SqlErrorCode, type SqlErrorOptions } from "./sql-error.js";
export { DATASET_LAYOUT, DATASET_LAYOUT_V1, TABLES, type Table, type TableName } from "./tables.js";
export {
  type IngestReport,
  type OpenTraceDatabaseOptions,
  openTraceDatabase,
  type QueryResult,
  type ResultColumn,
  TraceDatabase,
} from "./trace-database.js";
export { type QueryOptions, SANDBOX_STATEMENT_TYPES } from "./user-statements.js";
export { VIEWS } from "./views.js";
