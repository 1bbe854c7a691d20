// Query results as a table, CSV or JSON. Values arrive as @cg/sql returns them: bigint for the
// 64-bit integers, arrays for lists, `{ key, value }[]` for maps, null for NULL.
import type { QueryResult } from "@cg/sql";
import { stringifyJson } from "../format/json-output.js";
import { type Column, renderTable } from "../format/table.js";

function isMapEntries(value: unknown[]): value is { key: unknown; value: unknown }[] {
  return value.every(
    (entry) => typeof entry === "object" && entry !== null && "key" in entry && "value" in entry,
  );
}

/** A value in plain JSON terms: maps become objects, everything else stays (bigints included). */
function jsonValue(value: unknown, type: string): unknown {
  if (Array.isArray(value)) {
    if (type.startsWith("MAP(") && isMapEntries(value)) {
      return Object.fromEntries(value.map((entry) => [String(entry.key), jsonValue(entry.value, "")]));
    }
    return value.map((item) => jsonValue(item, ""));
  }
  return value;
}

/** A cell's text: NULL for null, lists and maps as compact JSON, numbers and strings as they are. */
function cellText(value: unknown, type: string): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "string") return value;
  if (typeof value === "object") return stringifyJson(jsonValue(value, type), 0);
  return String(value);
}

const NUMERIC = /^(U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|DOUBLE|FLOAT|DECIMAL.*|REAL)$/;

export function renderRowsTable(result: QueryResult): string {
  const columns: Column[] = result.columns.map((column) => ({
    header: column.name,
    align: NUMERIC.test(column.type) ? "right" : "left",
  }));
  const rows = result.rows.map((row) =>
    row.map((value, index) => cellText(value, result.columns[index]?.type ?? "")),
  );
  const count = `${result.rows.length} row${result.rows.length === 1 ? "" : "s"}`;
  return `${renderTable(columns, rows)}\n  ${count}\n`;
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** RFC 4180 CSV with a header; NULL is an empty field, lists and maps are JSON text. */
export function renderRowsCsv(result: QueryResult): string {
  const lines = [result.columns.map((column) => csvField(column.name)).join(",")];
  for (const row of result.rows) {
    lines.push(
      row
        .map((value, index) =>
          value === null || value === undefined
            ? ""
            : csvField(cellText(value, result.columns[index]?.type ?? "")),
        )
        .join(","),
    );
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** `{"columns": [{name, type}], "rows": [{column: value}]}`; 64-bit integers are exact JSON integers. */
export function renderRowsJson(result: QueryResult): string {
  const rows = result.rows.map((row) =>
    Object.fromEntries(
      result.columns.map((column, index) => [column.name, jsonValue(row[index] ?? null, column.type)]),
    ),
  );
  return `${stringifyJson({ columns: result.columns, rows })}\n`;
}
