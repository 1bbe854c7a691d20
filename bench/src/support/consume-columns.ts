// "Every field of every event consumed" for a column batch: the same checksum terms as
// consume-event.ts (which is additive modulo 2^32, so the order of the terms does not matter), read
// column by column. A string's term is computed once per dictionary entry, as a columnar consumer
// would; absent optional values add 0, defaulted ones their value.
import {
  ABSENT_ENUM,
  ABSENT_ID,
  ABSENT_U64,
  type ColumnBatch,
  EXACT_U64,
  type FieldColumn,
} from "@cg/schema";
import { numberTerm, stringTerm, tagsTerm } from "./consume-event.js";

function u64Term(field: FieldColumn, at: number): number {
  const value = field.values[at] as number;
  if (value === ABSENT_U64) return 0;
  return numberTerm(value === EXACT_U64 ? (field.exact.get(at) as bigint) : value);
}

/** The checksum of every field of every event of the batch. */
export function columnsTerm(batch: ColumnBatch): number {
  const strings = batch.strings;
  const terms = new Int32Array(strings.length);
  for (let id = 0; id < strings.length; id++) terms[id] = stringTerm(strings[id] as string);
  let sum = 0;
  for (const columns of batch.columns) {
    const rows = columns.size;
    if (rows === 0) continue;
    sum = (sum + Math.imul(rows, stringTerm(columns.kind))) | 0;
    for (const field of columns.fields) {
      const values = field.values;
      switch (field.type) {
        case "string":
          for (let row = 0; row < rows; row++) {
            const id = values[row] as number;
            if (id !== ABSENT_ID) sum = (sum + (terms[id] as number)) | 0;
          }
          break;
        case "enum": {
          const variants = (field.variants as readonly string[]).map(stringTerm);
          for (let row = 0; row < rows; row++) {
            const index = values[row] as number;
            if (index !== ABSENT_ENUM) sum = (sum + (variants[index] as number)) | 0;
          }
          break;
        }
        case "boolean":
          for (let row = 0; row < rows; row++) sum = (sum + (values[row] as number)) | 0;
          break;
        case "f64":
          for (let row = 0; row < rows; row++) {
            const value = values[row] as number;
            if (!Number.isNaN(value)) sum = (sum + numberTerm(value)) | 0;
          }
          break;
        case "u64":
          for (let row = 0; row < rows; row++) sum = (sum + u64Term(field, row)) | 0;
          break;
        case "strings": {
          const count = field.offsets[rows] as number;
          sum = (sum + count) | 0;
          for (let at = 0; at < count; at++) sum = (sum + (terms[field.flat[at] as number] as number)) | 0;
          break;
        }
        case "shape": {
          const count = field.offsets[rows] as number;
          sum = (sum + count) | 0;
          for (let at = 0; at < count; at++) {
            const size = field.flat[at] as number;
            sum = (sum + numberTerm(size === EXACT_U64 ? (field.exact.get(at) as bigint) : size)) | 0;
          }
          break;
        }
        case "string_map":
          for (let row = 0; row < rows; row++) sum = (sum + tagsTerm(field.maps[row] ?? {})) | 0;
          break;
      }
    }
  }
  return sum;
}
