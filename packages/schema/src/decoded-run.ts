// Commits a run of lines the WebAssembly decoder accepted to a ColumnBatch column by column: the
// decoder lays out each field's values for the run side by side (canonical-decoder.c, `writeRun`),
// so each field is one typed-array copy, and JavaScript writes per event only its line number and
// record index. Per line, committing value by value cost more than decoding the line.
import { asciiText } from "./ascii-text.js";
import type { CanonicalDecoder } from "./canonical-decoder.js";
import type { ColumnBatch } from "./column-batch.js";
import { KindColumns } from "./kind-columns.js";

/** Gives the decoder's string `id` of its last call its id in `batch`'s dictionary; returns it. */
export function internDecodedString(decoder: CanonicalDecoder, batch: ColumnBatch, id: number): number {
  const start = decoder.stringOffsets[id] as number;
  const batchId = batch.intern(
    asciiText(decoder.input, start, start + (decoder.stringLengths[id] as number)),
  );
  decoder.dictIds[id] = batchId;
  return batchId;
}

/**
 * Appends to `batch` the `count` lines from the decoder's line `first` (all accepted), numbered from
 * `line` and `index` on; their new strings join the batch's dictionary in the order the lines use
 * them, as when they are committed one by one.
 */
export function commitDecodedRun(
  decoder: CanonicalDecoder,
  batch: ColumnBatch,
  first: number,
  count: number,
  line: number,
  index: number,
): void {
  const pending = decoder.prepareRun(first, count);
  if (pending < 0) throw new RangeError(`decoder run ${first}+${count} holds a declined line`);
  const pendingIds = decoder.pendingIds;
  for (let at = 0; at < pending; at++) internDecodedString(decoder, batch, pendingIds[at] as number);
  const columns = batch.columns;
  const bases = decoder.runBases;
  for (let code = 0; code < columns.length; code++) bases[code] = (columns[code] as KindColumns).size;
  decoder.writeRun();
  const runRows = decoder.runRows;
  const fields = decoder.firstFields;
  for (let code = 0; code < columns.length; code++) {
    const rows = runRows[code] as number;
    if (rows > 0) {
      appendColumns(
        columns[code] as KindColumns,
        rows,
        decoder.out,
        decoder.runFields,
        fields[code] as number,
      );
    }
  }
  const at = batch.reserveEvents(count);
  batch.kinds.set(decoder.lineKinds.subarray(first, first + count), at);
  batch.rows.set(decoder.lineRows.subarray(first, first + count), at);
  const lines = batch.lines;
  const indexes = batch.indexes;
  for (let offset = 0; offset < count; offset++) {
    lines[at + offset] = line + offset;
    indexes[at + offset] = index + offset;
  }
  batch.size = at + count;
}

/** Copies one kind's `rows` rows of the run from `out` into its columns. */
function appendColumns(
  columns: KindColumns,
  rows: number,
  out: Float64Array,
  runFields: Int32Array,
  firstField: number,
): void {
  const base = columns.reserveRows(rows);
  const fields = columns.fields;
  for (let index = 0; index < fields.length; index++) {
    const field = fields[index] as (typeof fields)[number];
    const from = runFields[(firstField + index) * 2] as number;
    if (field.type === "strings" || field.type === "shape") {
      const elements = runFields[(firstField + index) * 2 + 1] as number;
      KindColumns.roomForElements(field, base, elements);
      const offsets = field.offsets;
      let end = offsets[base] as number;
      field.flat.set(out.subarray(from + rows, from + rows + elements), end);
      for (let row = 0; row < rows; row++) {
        end += out[from + row] as number;
        offsets[base + row + 1] = end;
      }
    } else {
      // The typed array converts: string ids and enum indexes to integers, the rest as doubles.
      field.values.set(out.subarray(from, from + rows), base);
    }
  }
  columns.size = base + rows;
}
