// Reading an op's values straight from a batch's op columns (no event object): where its fields
// are, its shape as a list, and the shape's text as the operator table shows it.
import { EVENT_KINDS, EVENT_LAYOUTS, EXACT_U64, type FieldColumn, type U64 } from "@cg/schema/core";

export const OP_CODE = EVENT_KINDS.indexOf("op");

const OP_KEYS = [
  "span_id",
  "op_name",
  "shape",
  "dtype",
  "device",
  "duration_ns",
  "storage_bytes",
  "input_storage_bytes",
] as const;

/** Index of each op field in the op columns, from the layout table. */
export const OP_FIELD = Object.fromEntries(
  OP_KEYS.map((key) => {
    const index = EVENT_LAYOUTS.op.fields.findIndex((field) => field.key === key);
    if (index < 0) throw new Error(`op layout has no field ${key}`);
    return [key, index];
  }),
) as Record<(typeof OP_KEYS)[number], number>;

/** Row `row` of a shape column as a list (dimensions above 2^53 − 1 as bigints). */
export function shapeOf(shape: FieldColumn, row: number): U64[] {
  const values: U64[] = [];
  for (let at = shape.offsets[row] as number; at < (shape.offsets[row + 1] as number); at++) {
    const size = shape.flat[at] as number;
    values.push(size === EXACT_U64 ? (shape.exact.get(at) as bigint) : size);
  }
  return values;
}

/**
 * `formatShape` of shape column rows. Consecutive ops mostly share a shape, so the last text is
 * kept with its dimensions and returned again without building a string.
 */
export class ShapeText {
  #dimensions = new Float64Array(8);
  #length = -1;
  #text = "";

  of(shape: FieldColumn, row: number): string {
    const from = shape.offsets[row] as number;
    const length = (shape.offsets[row + 1] as number) - from;
    const flat = shape.flat;
    if (length === this.#length) {
      let same = true;
      for (let index = 0; index < length && same; index++)
        same = flat[from + index] === this.#dimensions[index];
      if (same) return this.#text;
    }
    let text = "[";
    let exact = false;
    for (let index = 0; index < length; index++) {
      const size = flat[from + index] as number;
      exact ||= size === EXACT_U64;
      text += `${index === 0 ? "" : ", "}${size === EXACT_U64 ? String(shape.exact.get(from + index)) : size}`;
    }
    text += "]";
    // A marked dimension's value lives in the batch: such a shape is never reused from here.
    if (exact || length > this.#dimensions.length) {
      this.#length = -1;
      return text;
    }
    for (let index = 0; index < length; index++) this.#dimensions[index] = flat[from + index] as number;
    this.#length = length;
    this.#text = text;
    return text;
  }
}
