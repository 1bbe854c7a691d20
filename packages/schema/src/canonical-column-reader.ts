// The canonical-bytes tier writing columns: the same grammar, key tests and token readers as the
// event reader (canonical-reader-source.ts), generated from the layout table the same way, but each
// value goes straight into its kind's typed column (strings as ids of the batch's dictionary, list
// elements into the flat arrays) and no event object is built. A line it declines leaves the
// columns as they were (the row is only committed after the closing brace and line end were read);
// the caller then decodes the line with the text tiers and appends their event.
import * as cursor from "./canonical-cursor.js";
import { ReaderSource } from "./canonical-reader-source.js";
import type { ColumnBatch } from "./column-batch.js";
import { EVENT_LAYOUTS, type EventLayout, type EventLayoutTable, type FieldLayout } from "./event-layouts.js";
import { generatedTier, type SourceCompiler, sourceString } from "./generated-function.js";
import { ABSENT_ENUM, ABSENT_ID, ABSENT_U64, KindColumns } from "./kind-columns.js";

/**
 * Reads the canonical line at `start` of `source` into the batch as event (`line`, `index`);
 * returns the index of its terminating LF (or the input's length), or -1 when the line is not
 * canonical (nothing was added).
 */
export type CanonicalColumnReader = (
  source: Uint8Array,
  start: number,
  line: number,
  index: number,
) => number;

/** The statement storing the value of `field` (at table index `index` of kind `code`) in row `r`. */
function storeSource(
  source: ReaderSource,
  field: FieldLayout,
  column: string,
  present: string | undefined,
): string {
  const guard = (value: string, absent: number) =>
    present === undefined ? value : `${present} ? ${value} : ${absent}`;
  switch (field.type) {
    case "string":
      return `${column}.values[r] = ${guard("sid(readString())", ABSENT_ID)};\n`;
    case "enum": {
      const variants = field.variants ?? [];
      const read = source.enumMatch(variants, `readEnumIndex(${source.constants.ref(variants)})`, String);
      return `${column}.values[r] = ${guard(read, ABSENT_ENUM)};\n`;
    }
    case "u64":
      return `${column}.values[r] = ${guard("readU64()", ABSENT_U64)};\n`;
    case "boolean":
      return `${column}.values[r] = ${guard("(readBoolean() ? 1 : 0)", 0)};\n`;
    case "f64":
      return `${column}.values[r] = ${guard("readFloat()", Number.NaN)};\n`;
    case "strings":
      return `${present === undefined ? "" : `if (${present}) `}readStringsInto(${column});\n`;
    case "shape":
      return `${present === undefined ? "" : `if (${present}) `}readShapeInto(${column});\n`;
    default:
      throw new Error(`no column reader for ${field.type}`);
  }
}

/** Whether every field of `layout` has a column reader (`meta`'s string map has none). */
function readable(layout: EventLayout): boolean {
  return layout.fields.every((field) => field.type !== "string_map");
}

function kindReaderSource(
  source: ReaderSource,
  layout: EventLayout,
  code: number,
  firstKeyInHead: boolean,
): string {
  let body = `function read${code}() {\nconst r = K${code}.reserve();\n`;
  // The list columns' pending elements start at the row's offset (\`open\`, unrolled).
  layout.fields.forEach((field, index) => {
    if (field.type === "strings" || field.type === "shape")
      body += `F${code}_${index}.pending = F${code}_${index}.offsets[r];\n`;
  });
  layout.fields.forEach((field, index) => {
    const column = `F${code}_${index}`;
    const member = `,${sourceString(field.key)}:`;
    if (index === 0 && firstKeyInHead) {
      body += storeSource(source, field, column, undefined);
    } else if (field.presence === "optional") {
      body += `const h${index} = ${source.optionalKey(member)};\n`;
      body += storeSource(source, field, column, `h${index}`);
    } else {
      body += `if (!${source.expectKey(member)}) return -1;\n`;
      body += storeSource(source, field, column, undefined);
    }
  });
  return `${body}return ${code};\n}\n`;
}

function columnReaderSource(source: ReaderSource, layouts: EventLayoutTable): string {
  let bound = "const B = batch;\n";
  let body = `function sid(text) {
const generation = B.generation;
const known = lastStringNote(generation);
if (known >= 0) return known;
// A failed read returns "" and leaves the cache's last slot another string's: no note then.
if (!isOk()) return B.intern(text);
const key = lastStringKey();
const id = key >= 0 ? B.internKey(text, shortStringKeys, key) : B.intern(text);
noteLastString(generation, id);
return id;
}
function readStringsInto(F) {
if (listIsEmpty()) return;
do {
// The slot first: taking it may grow the flat array, which \`F.flat[flatSlot(F)] =\` would miss.
const at = flatSlot(F);
F.flat[at] = sid(readString());
} while (isOk() && listContinues());
}
function readShapeInto(F) {
if (listIsEmpty()) return;
do {
const at = flatSlot(F);
F.flat[at] = readU64();
} while (isOk() && listContinues());
}
`;
  const byFirstCode = new Map<number, { head: string; code: number }[]>();
  Object.values(layouts).forEach((layout, code) => {
    if (!readable(layout)) return;
    bound += `const K${code} = batch.columns[${code}];\n`;
    layout.fields.forEach((_, index) => {
      bound += `const F${code}_${index} = K${code}.fields[${index}];\n`;
    });
    const first = layout.fields[0];
    const firstKeyInHead = first !== undefined && first.presence !== "optional";
    body += kindReaderSource(source, layout, code, firstKeyInHead);
    const head = source.optionalKey(
      firstKeyInHead ? `${layout.kind}",${sourceString(first.key)}:` : `${layout.kind}"`,
    );
    const letter = layout.kind.charCodeAt(0);
    byFirstCode.set(letter, [...(byFirstCode.get(letter) ?? []), { head, code }]);
  });
  body += `function readKind() {\nif (!${source.optionalKey('{"kind":"')}) return -1;\nswitch (peekByte()) {\n`;
  for (const [letter, kinds] of byFirstCode) {
    body += `case ${letter}:\n`;
    for (const { head, code } of kinds) body += `if (${head}) return read${code}();\n`;
    body += "return -1;\n";
  }
  body += `default:\nreturn -1;\n}\n}\n`;
  body += `return function readColumns(source, start, line, index) {
const length = source.length;
begin(source, start, length);
const code = readKind();
if (code < 0 || !isOk()) return -1;
const after = closeLine();
if (after < 0 || (after < length && source[after] !== 10)) return -1;
B.columns[code].commit();
B.push(code, line, index);
return after;
};\n`;
  return `return function bind(batch) {\n${bound}${body}};\n`;
}

/** A reader that declines every line (where code generation is forbidden: the text tiers decide). */
function declining(): CanonicalColumnReader {
  return () => -1;
}

/**
 * The canonical column reader of `layouts`, as a function of the batch it fills (bind it once per
 * batch; the batch may be cleared and refilled). The batch must have been made with the same table.
 */
export function compileCanonicalColumnReader(
  layouts: EventLayoutTable,
  compile?: SourceCompiler,
): (batch: ColumnBatch) => CanonicalColumnReader {
  const source = new ReaderSource();
  const body = columnReaderSource(source, layouts);
  const bindings = { ...cursor, C: source.constants.values, flatSlot: KindColumns.flatSlot };
  const bind = generatedTier<(batch: ColumnBatch) => CanonicalColumnReader | undefined>(
    bindings,
    body,
    compile,
  );
  return (batch) => bind(batch) ?? declining();
}

/** The canonical column reader of the trace/6 layout table, as a function of the batch it fills. */
export const canonicalColumnReader: (batch: ColumnBatch) => CanonicalColumnReader =
  compileCanonicalColumnReader(EVENT_LAYOUTS);
