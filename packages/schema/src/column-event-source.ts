// Generated builders of event objects from a ColumnBatch's columns, one per kind: each reads the
// row's values and returns one object literal per combination of optional keys present
// (event-literal-source.ts), the hidden classes the canonical event reader gives its events. A loop
// over the field list storing keys one by one made every event a slow dictionary-mode object.
import type { EventLayout, EventLayoutTable, FieldLayout } from "./event-layouts.js";
import { eventReturnSource } from "./event-literal-source.js";
import type { TraceEvent } from "./events.js";
import { generatedFunction, type SourceCompiler } from "./generated-function.js";
import { ABSENT_ENUM, ABSENT_ID, ABSENT_U64, EXACT_U64, type KindColumns } from "./kind-columns.js";

/** Builds the event at `row` of `columns`, strings from `strings`. */
export type ColumnEventBuilder = (
  columns: KindColumns,
  row: number,
  strings: readonly string[],
) => TraceEvent;

/**
 * A whole number read from a Float64Array, as a small integer where it is one. The array gives V8 a
 * double, which it would store in the event as a boxed number (16 bytes more per value, more work
 * for the collector); the text readers' events hold small integers unboxed.
 */
function smallInteger(value: number): number {
  return (value | 0) === value ? value | 0 : value;
}

function valueSource(field: FieldLayout, index: number): string {
  const column = `columns.fields[${index}]`;
  const optional = field.presence === "optional";
  switch (field.type) {
    case "string":
      return `const s${index} = ${column}.values[row];\n${optional ? `const h${index} = s${index} !== ${ABSENT_ID};\n` : ""}const v${index} = strings[s${index}];\n`;
    case "enum":
      return `const e${index} = ${column}.values[row];\n${optional ? `const h${index} = e${index} !== ${ABSENT_ENUM};\n` : ""}const v${index} = ${column}.variants[e${index}];\n`;
    case "boolean":
      return `const v${index} = ${column}.values[row] === 1;\n`;
    case "f64":
      return `const v${index} = ${column}.values[row];\n${optional ? `const h${index} = v${index} === v${index};\n` : ""}`;
    case "u64":
      return `const n${index} = ${column}.values[row];\n${optional ? `const h${index} = n${index} !== ${ABSENT_U64};\n` : ""}const v${index} = n${index} === ${EXACT_U64} ? ${column}.exact.get(row) : smallInteger(n${index});\n`;
    case "strings":
      return `const v${index} = stringList(${column}, row, strings);\n`;
    case "shape":
      return `const v${index} = shapeList(${column}, row);\n`;
    case "string_map":
      return `const v${index} = ${column}.maps[row];\n`;
  }
}

function builderSource(layout: EventLayout): string {
  // Named after its kind (as an identifier) for profiles and V8's traces.
  let body = `function build_${layout.kind.replace(/[^A-Za-z0-9_]/g, "_")}(columns, row, strings) {\n`;
  layout.fields.forEach((field, index) => {
    body += valueSource(field, index);
  });
  return `${body}${eventReturnSource(layout)}}`;
}

function stringList(
  column: KindColumns["fields"][number],
  row: number,
  strings: readonly string[],
): string[] {
  const from = column.offsets[row] as number;
  const to = column.offsets[row + 1] as number;
  const values = new Array<string>(to - from);
  for (let at = from; at < to; at++) values[at - from] = strings[column.flat[at] as number] as string;
  return values;
}

function shapeList(column: KindColumns["fields"][number], row: number): (number | bigint)[] {
  const from = column.offsets[row] as number;
  const to = column.offsets[row + 1] as number;
  const values = new Array<number | bigint>(to - from);
  for (let at = from; at < to; at++) {
    const size = column.flat[at] as number;
    values[at - from] = size === EXACT_U64 ? (column.exact.get(at) as bigint) : smallInteger(size);
  }
  return values;
}

/** The builders of `layouts`, by kind code; undefined where code generation is forbidden. */
export function compileColumnEventBuilders(
  layouts: EventLayoutTable,
  compile?: SourceCompiler,
): ColumnEventBuilder[] | undefined {
  const body = `return [\n${Object.values(layouts).map(builderSource).join(",\n")}\n];\n`;
  return generatedFunction<ColumnEventBuilder[]>({ stringList, shapeList, smallInteger }, body, compile);
}
