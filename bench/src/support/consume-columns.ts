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

// One small loop per wire type, as columnar code is written (a kernel per type): each sees one
// kind of typed array, where one loop over every field would see them all and be compiled for each.
function stringIdsTerm(values: Int32Array, rows: number, terms: Int32Array): number {
  let sum = 0;
  for (let row = 0; row < rows; row++) {
    const id = values[row] as number;
    if (id !== ABSENT_ID) sum = (sum + (terms[id] as number)) | 0;
  }
  return sum;
}

function enumTerm(values: Uint8Array, rows: number, terms: readonly number[]): number {
  let sum = 0;
  for (let row = 0; row < rows; row++) {
    const index = values[row] as number;
    if (index !== ABSENT_ENUM) sum = (sum + (terms[index] as number)) | 0;
  }
  return sum;
}

function booleanTerm(values: Uint8Array, rows: number): number {
  let sum = 0;
  for (let row = 0; row < rows; row++) sum = (sum + (values[row] as number)) | 0;
  return sum;
}

function f64Term(values: Float64Array, rows: number): number {
  let sum = 0;
  for (let row = 0; row < rows; row++) {
    const value = values[row] as number;
    if (!Number.isNaN(value)) sum = (sum + numberTerm(value)) | 0;
  }
  return sum;
}

function u64ColumnTerm(field: FieldColumn, rows: number): number {
  let sum = 0;
  for (let row = 0; row < rows; row++) sum = (sum + u64Term(field, row)) | 0;
  return sum;
}

function stringListsTerm(flat: Int32Array, count: number, terms: Int32Array): number {
  let sum = count;
  for (let at = 0; at < count; at++) sum = (sum + (terms[flat[at] as number] as number)) | 0;
  return sum;
}

function shapesTerm(field: FieldColumn, count: number): number {
  let sum = count;
  const flat = field.flat as Float64Array;
  for (let at = 0; at < count; at++) {
    const size = flat[at] as number;
    sum = (sum + numberTerm(size === EXACT_U64 ? (field.exact.get(at) as bigint) : size)) | 0;
  }
  return sum;
}

function mapsTerm(field: FieldColumn, rows: number): number {
  let sum = 0;
  for (let row = 0; row < rows; row++) sum = (sum + tagsTerm(field.maps[row] ?? {})) | 0;
  return sum;
}

function fieldTerm(field: FieldColumn, rows: number, terms: Int32Array): number {
  switch (field.type) {
    case "string":
      return stringIdsTerm(field.values as Int32Array, rows, terms);
    case "enum":
      return enumTerm(
        field.values as Uint8Array,
        rows,
        (field.variants as readonly string[]).map(stringTerm),
      );
    case "boolean":
      return booleanTerm(field.values as Uint8Array, rows);
    case "f64":
      return f64Term(field.values as Float64Array, rows);
    case "u64":
      return u64ColumnTerm(field, rows);
    case "strings":
      return stringListsTerm(field.flat as Int32Array, field.offsets[rows] as number, terms);
    case "shape":
      return shapesTerm(field, field.offsets[rows] as number);
    case "string_map":
      return mapsTerm(field, rows);
  }
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
    for (const field of columns.fields) sum = (sum + fieldTerm(field, rows, terms)) | 0;
  }
  return sum;
}
