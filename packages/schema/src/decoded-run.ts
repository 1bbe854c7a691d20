// Commits a run of lines the WebAssembly decoder accepted to a ColumnBatch column by column: the
// decoder staged each line's values in its kind's columns as it decoded it, typed as the batch's
// columns (canonical-decoder.c), so each field of the run is one typed-array copy of the same type,
// and JavaScript writes per event only its line number and record index. Per line, committing value
// by value cost more than decoding the line.
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
  const pending = decoder.stageRun(first, count);
  if (pending < 0) throw new RangeError(`decoder run ${first}+${count} holds a declined line`);
  const pendingIds = decoder.pendingIds;
  for (let at = 0; at < pending; at++) internDecodedString(decoder, batch, pendingIds[at] as number);
  const columns = batch.columns;
  const bases = decoder.runBases;
  for (let code = 0; code < columns.length; code++) bases[code] = (columns[code] as KindColumns).size;
  decoder.finishRun();
  const runRows = decoder.runRows;
  for (let code = 0; code < columns.length; code++) {
    const rows = runRows[code] as number;
    if (rows > 0) appendColumns(columns[code] as KindColumns, rows, decoder, code);
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

/** Copies kind `code`'s `rows` rows of the run from the decoder's staged columns into `columns`. */
function appendColumns(columns: KindColumns, rows: number, decoder: CanonicalDecoder, code: number): void {
  const base = columns.reserveRows(rows);
  const start = decoder.runStarts[code] as number;
  const firstField = decoder.firstFields[code] as number;
  const fields = columns.fields;
  for (let index = 0; index < fields.length; index++) {
    const field = fields[index] as (typeof fields)[number];
    const staged = decoder.stageOffsets[firstField + index];
    if (staged !== undefined) {
      const from = staged[start] as number;
      const elements = (staged[start + rows] as number) - from;
      KindColumns.roomForElements(field, base, elements);
      const offsets = field.offsets;
      const end = (offsets[base] as number) - from;
      field.flat.set(
        (decoder.stageFlat[firstField + index] as Int32Array | Float64Array).subarray(from, from + elements),
        end + from,
      );
      for (let row = 1; row <= rows; row++) offsets[base + row] = end + (staged[start + row] as number);
    } else {
      const values = decoder.stageColumns[firstField + index] as Int32Array | Uint8Array | Float64Array;
      field.values.set(values.subarray(start, start + rows), base);
    }
  }
  columns.size = base + rows;
}
