// A filled column (`ColumnData`, column-buffer.ts) copied into a DuckDB vector: one copy of the
// values, the validity mask when a row is NULL, one assign per string DuckDB stores out of line,
// and the same again for a list's elements or a struct's fields.
import duckdb from "@duckdb/node-bindings";
import { type ColumnData, validityBytes } from "./column-buffer.js";

const utf8 = new TextEncoder();

/** Writes the first `rows` rows of `data` into `vector`. */
export function writeColumn(vector: duckdb.Vector, data: ColumnData, rows: number): void {
  if (data.fields !== undefined) {
    for (const [index, field] of data.fields.entries()) {
      writeColumn(duckdb.struct_vector_get_child(vector, index), field, rows);
    }
  } else if (rows > 0) {
    duckdb.copy_data_to_vector(vector, 0, data.values, 0, rows * data.rowBytes);
  }
  if (data.strings !== undefined) {
    const { rows: stringRows, values } = data.strings;
    for (let index = 0; index < stringRows.length; index++) {
      // By length, not as a C string: a value may hold U+0000.
      duckdb.vector_assign_string_element_len(
        vector,
        stringRows[index] as number,
        utf8.encode(values[index] as string),
      );
    }
  }
  if (data.child !== undefined) {
    const { data: child, rows: childRows } = data.child;
    duckdb.list_vector_reserve(vector, childRows);
    duckdb.list_vector_set_size(vector, childRows);
    writeColumn(duckdb.list_vector_get_child(vector), child, childRows);
  }
  if (data.validity !== undefined) {
    duckdb.vector_ensure_validity_writable(vector);
    duckdb.copy_data_to_vector_validity(vector, 0, data.validity, 0, validityBytes(rows));
  }
}
