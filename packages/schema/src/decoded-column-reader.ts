// The column reader with the WebAssembly decoder in front (canonical-decoder.ts): a piece of a trace
// is decoded in one call, and each line the processor then asks for is committed to the batch from
// the decoded values by code generated from the layout table, as the JavaScript tier's readers are
// (canonical-column-reader.ts). A line the decoder declined, or one it has not decoded, goes to the
// JavaScript tier, which decides it as it decides every line without the decoder; the decoder only
// accepts lines that tier accepts, with the same values (a property test holds the two equal).
import { asciiText } from "./ascii-text.js";
import { type CanonicalColumnReader, compileCanonicalColumnReader } from "./canonical-column-reader.js";
import { DecoderPool, decoderReads } from "./canonical-decoder.js";
import type { ColumnBatch } from "./column-batch.js";
import { EVENT_LAYOUTS, type EventLayout, type EventLayoutTable } from "./event-layouts.js";
import { generatedFunction, type SourceCompiler } from "./generated-function.js";
import { KindColumns } from "./kind-columns.js";

/**
 * A canonical column reader that may look ahead in the bytes it is given. `forget` says that the
 * next bytes are new even where a buffer is reused: call it before each new piece of a trace.
 */
export interface ColumnLineReader extends CanonicalColumnReader {
  forget(): void;
}

/** The function committing kind `code`'s decoded values from `V[v]` on as the batch's next row. */
function commitSource(layout: EventLayout, code: number): string {
  let body = `function commit${code}(v) {\nconst r = K${code}.reserve();\n`;
  layout.fields.forEach((field, index) => {
    const column = `F${code}_${index}`;
    switch (field.type) {
      case "string":
        body += `${column}.values[r] = sid(V[v++]);\n`;
        break;
      case "strings":
      case "shape": {
        const element = field.type === "strings" ? "sid(V[v++])" : "V[v++]";
        body += `${column}.pending = ${column}.offsets[r];\n`;
        body += `for (let n = V[v++]; n > 0; n--) {\nconst at = flatSlot(${column});\n${column}.flat[at] = ${element};\n}\n`;
        break;
      }
      default: // enum index, boolean 0/1, u64, f64: the decoder wrote the column's numbers and markers
        body += `${column}.values[r] = V[v++];\n`;
    }
  });
  return `${body}K${code}.commit();\n}\n`;
}

function readerSource(layouts: EventLayoutTable): string {
  let bound = "const B = batch;\n";
  let commits = "";
  let cases = "";
  Object.values(layouts).forEach((layout, code) => {
    if (!decoderReads(layout)) return;
    bound += `const K${code} = B.columns[${code}];\n`;
    layout.fields.forEach((_, index) => {
      bound += `const F${code}_${index} = K${code}.fields[${index}];\n`;
    });
    commits += commitSource(layout, code);
    cases += `case ${code}: commit${code}(LV[at]); break;\n`;
  });
  return `return function bind(batch, pool, fallback) {
${bound}// The decoder this reader holds, claimed from the pool when it decodes, and its views.
const me = {};
let D, V, LS, LE, LK, LV, SO, SL, IN, ids, stamps, capacity = 0;
let generation = -1, source = null, base = 0, count = 0, next = 0;
function claim() {
D = pool.claim(me);
if (D === undefined) return false;
V = D.values;
LS = D.lineStarts;
LE = D.lineEnds;
LK = D.lineKinds;
LV = D.lineValues;
SO = D.stringOffsets;
SL = D.stringLengths;
IN = D.input;
ids = D.ids;
stamps = D.stamps;
capacity = D.inputCapacity;
return true;
}
// The batch's id of a string id of the last call (see CanonicalDecoder.ids).
function sid(w) {
if (w < 0) return w;
if (stamps[w] === D.stamp) return ids[w];
const at = SO[w];
const id = B.intern(asciiText(IN, at, at + SL[w]));
stamps[w] = D.stamp;
ids[w] = id;
return id;
}
${commits}function decodeFrom(bytes, start) {
source = null;
count = 0;
next = 0;
if ((D === undefined || D.owner !== me) && !claim()) return;
const length = Math.min(bytes.length - start, capacity);
IN.set(bytes.subarray(start, start + length));
count = D.decode(length);
base = start;
source = bytes;
D.stamp++;
}
function read(bytes, start, line, index) {
if (B.generation !== generation) {
generation = B.generation;
// Claimed here at the first call too, so this branch has run (and V8 has seen its property
// accesses) before the function is optimized: a new batch otherwise deoptimizes it.
if (D !== undefined || claim()) D.stamp++;
}
// Another reader's call may have taken the decoder since: this piece is decoded again.
if (bytes !== source || D.owner !== me) decodeFrom(bytes, start);
else {
// Lines the processor skipped (blank, other kinds) are stepped over.
while (next < count && LS[next] + base < start) next++;
if (next >= count || LS[next] + base !== start) decodeFrom(bytes, start);
}
// Not decoded: longer than the decoder's input, the last line without its LF, or no decoder.
if (next >= count) return fallback(bytes, start, line, index);
const at = next++;
const code = LK[at];
if (code < 0) return fallback(bytes, start, line, index);
switch (code) {
${cases}default: return fallback(bytes, start, line, index);
}
B.push(code, line, index);
return LE[at] + base;
}
read.forget = function forget() {
source = null;
};
return read;
};
`;
}

/**
 * The decoded column reader of `layouts`, as a function of the batch it fills; its readers share a
 * pool of decoders (`DecoderPool`). Where there is no decoder or code generation is forbidden, the JavaScript
 * tier's reader alone.
 */
export function compileDecodedColumnReader(
  layouts: EventLayoutTable,
  compile?: SourceCompiler,
): (batch: ColumnBatch) => ColumnLineReader {
  const javascript = compileCanonicalColumnReader(layouts, compile);
  const bind = generatedFunction<
    (batch: ColumnBatch, pool: DecoderPool, fallback: CanonicalColumnReader) => ColumnLineReader
  >({ asciiText, flatSlot: KindColumns.flatSlot }, readerSource(layouts), compile);
  const pool = new DecoderPool(layouts);
  return (batch) => {
    const fallback = javascript(batch);
    if (bind === undefined) return Object.assign(fallback, { forget() {} });
    return bind(batch, pool, fallback);
  };
}

/** The decoded column reader of the trace/6 layout table, as a function of the batch it fills. */
export const decodedColumnReader: (batch: ColumnBatch) => ColumnLineReader =
  compileDecodedColumnReader(EVENT_LAYOUTS);
