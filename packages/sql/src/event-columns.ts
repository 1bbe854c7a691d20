// The columns of each event table, derived from @cg/schema's declarative wire layout
// (`EVENT_LAYOUTS`, one row per key in canonical order): a wire field added there becomes a column
// here without a second list to keep in step.
import type { EventLayout, WireType } from "@cg/schema/core";

/** SQL type of a column, as DuckDB spells it. */
export type SqlType =
  | "VARCHAR"
  | "BOOLEAN"
  | "DOUBLE"
  | "UBIGINT"
  | "UINTEGER"
  | "UBIGINT[]"
  | "VARCHAR[]"
  | "MAP(VARCHAR, VARCHAR)";

export interface Column {
  name: string;
  type: SqlType;
  /** True for an optional wire key (no default): an absent value is NULL, never 0. */
  nullable: boolean;
  /** Where the value comes from: the wire key, or a word on how it is derived. */
  source: string;
  /** The wire key the value is read from, for columns that hold a wire field as it is. */
  key?: string;
  /** Set where an absent value is resolved from the row's `shape` and `dtype` (storage bytes, spec §15.4). */
  resolvedFromShape?: true;
}

/** The SQL type of each wire type: u64 stays exact (UBIGINT), enums are text, lists are LISTs. */
export const SQL_TYPE_OF_WIRE: Readonly<Record<WireType, SqlType>> = {
  string: "VARCHAR",
  u64: "UBIGINT",
  boolean: "BOOLEAN",
  f64: "DOUBLE",
  enum: "VARCHAR",
  strings: "VARCHAR[]",
  shape: "UBIGINT[]",
  string_map: "MAP(VARCHAR, VARCHAR)",
};

/** The columns of one event kind's layout, in canonical key order (`kind` is not a column). */
export function columnsOfEvent(layout: EventLayout): Column[] {
  return layout.fields.map((field) => ({
    name: field.key,
    type: SQL_TYPE_OF_WIRE[field.type],
    nullable: field.presence === "optional",
    source: `wire \`${field.key}\``,
    key: field.key,
  }));
}
