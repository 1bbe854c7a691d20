/** A typed column of numbers. */
export type NumberColumn = Uint8Array | Uint16Array | Int32Array | Uint32Array | Float64Array;

/**
 * A new array of `column`'s type and `length` elements: `column`'s values first, zeros after.
 * How the analysis columns here and in `@cg/parser` grow.
 */
export function grownCopy<Column extends NumberColumn>(column: Column, length: number): Column {
  const grown = new (column.constructor as new (length: number) => Column)(length);
  grown.set(column);
  return grown;
}
