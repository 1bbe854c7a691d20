/** The only schema string this package reads and writes. */
export const SCHEMA = "candle-graph/trace/6" as const;
export type SchemaVersion = typeof SCHEMA;
