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
import { commitDecodedRun, internDecodedString } from "./decoded-run.js";
import { EVENT_LAYOUTS, type EventLayout, type EventLayoutTable } from "./event-layouts.js";
import { generatedFunction, type SourceCompiler } from "./generated-function.js";
import { KindColumns } from "./kind-columns.js";

/**
 * A canonical column reader that may look ahead in the bytes it is given. `forget` says that the
 * next bytes are new even where a buffer is reused: call it before each new piece of a trace.
 */
export interface ColumnLineReader extends CanonicalColumnReader {
  forget(): void;
  /**
   * Reads the run of lines from `start` on that the decoder accepted, committed together, numbered
   * from `line` and `index` on: at most `maxLines`, each at most `maxLength` bytes, and by kind code
   * as `runKinds` says: RUN_READ, RUN_STOP (the run ends before such a line), or RUN_CHECK (the line
   * joins the run when `check` returns true, given the text of its first field, a string; the empty
   * string where the line has none or the kind's first field is not one). Returns where the line
   * after the run starts, or -1 when it read none (that line is then for `read`).
   */
  run?(
    bytes: Uint8Array,
    start: number,
    line: number,
    index: number,
    maxLines: number,
    maxLength: number,
    runKinds: Uint8Array,
    check: RunCheck,
  ): number;
}

/** `ColumnLineReader.run`'s verdict on a line of kind `code` whose first field is the string `text`. */
export type RunCheck = (code: number, text: string, line: number, index: number) => boolean;

/** How `ColumnLineReader.run` treats the lines of a kind (`runKinds`). */
export const RUN_READ = 0;
export const RUN_STOP = 1;
export const RUN_CHECK = 2;

/** The function committing kind `code`'s line staged in row `s` of the decoder's columns as the batch's next row. */
function commitSource(layout: EventLayout, code: number): string {
  let body = `function commit${code}(s) {\nconst r = K${code}.reserve();\n`;
  layout.fields.forEach((field, index) => {
    const column = `F${code}_${index}`;
    const staged = `S${code}_${index}`;
    switch (field.type) {
      case "string":
        body += `${column}.values[r] = sid(${staged}[s]);\n`;
        break;
      case "strings":
      case "shape": {
        const element = field.type === "strings" ? `sid(E${code}_${index}[e])` : `E${code}_${index}[e]`;
        body += `${column}.pending = ${column}.offsets[r];\n`;
        body += `for (let e = O${code}_${index}[s], end = O${code}_${index}[s + 1]; e < end; e++) {\nconst at = flatSlot(${column});\n${column}.flat[at] = ${element};\n}\n`;
        break;
      }
      default: // enum index, boolean 0/1, u64, f64: the decoder staged the column's numbers and markers
        body += `${column}.values[r] = ${staged}[s];\n`;
    }
  });
  return `${body}K${code}.commit();\n}\n`;
}

function readerSource(layouts: EventLayoutTable): string {
  let bound = "const B = batch;\n";
  let staged = "";
  let views = "";
  let commits = "";
  let cases = "";
  Object.values(layouts).forEach((layout, code) => {
    if (!decoderReads(layout)) return;
    bound += `const K${code} = B.columns[${code}];\n`;
    layout.fields.forEach((field, index) => {
      bound += `const F${code}_${index} = K${code}.fields[${index}];\n`;
      const number = `D.firstFields[${code}] + ${index}`;
      if (field.type === "strings" || field.type === "shape") {
        staged += `let O${code}_${index}, E${code}_${index};\n`;
        views += `O${code}_${index} = D.stageOffsets[${number}];\nE${code}_${index} = D.stageFlat[${number}];\n`;
      } else {
        staged += `let S${code}_${index};\n`;
        views += `S${code}_${index} = D.stageColumns[${number}];\n`;
      }
    });
    // A run's check is given the text of the line's first field, a string.
    if (layout.fields[0]?.type === "string") views += `FIRST[${code}] = S${code}_0;\n`;
    commits += commitSource(layout, code);
    cases += `case ${code}: commit${code}(LR[at]); break;\n`;
  });
  return `return function bind(batch, pool, fallback) {
${bound}// The decoder this reader holds, claimed from the pool when it decodes, and its views.
const me = {};
let D, LS, LE, LK, LR, SO, SL, IN, DI, capacity = 0;
// Its staged columns (S), list offsets (O) and elements (E) by kind and field, and each kind's first
// field's column.
${staged}const FIRST = [];
let generation = -1, source = null, base = 0, count = 0, next = 0;
function claim() {
D = pool.claim(me);
if (D === undefined) return false;
LS = D.lineStarts;
LE = D.lineEnds;
LK = D.lineKinds;
LR = D.lineStageRows;
${views}
SO = D.stringOffsets;
SL = D.stringLengths;
IN = D.input;
DI = D.dictIds;
capacity = D.inputCapacity;
return true;
}
// The batch's id of a string id of the last call (see CanonicalDecoder.dictIds).
function sid(w) {
if (w < 0) return w;
const id = DI[w];
return id >= 0 ? id : internString(D, B, w);
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
}
// A new batch has a new dictionary: the batch ids of the decoded strings are forgotten. (Claimed
// here at the first call too, so this has run before V8 optimizes the callers: a new batch would
// otherwise deoptimize them.)
function renew() {
generation = B.generation;
if (D === undefined) claim();
if (D !== undefined && D.owner === me) D.forgetIds();
}
// Positions next on the decoded line starting at start, decoding the piece from there if needed;
// false when that line was not decoded.
function seek(bytes, start) {
if (B.generation !== generation) renew();
// Another reader's call may have taken the decoder since: this piece is decoded again.
if (bytes !== source || D.owner !== me) decodeFrom(bytes, start);
else {
// Lines the processor skipped (blank, other kinds) are stepped over.
while (next < count && LS[next] + base < start) next++;
if (next >= count || LS[next] + base !== start) decodeFrom(bytes, start);
}
// Not decoded: longer than the decoder's input, the last line without its LF, or no decoder.
return next < count;
}
function run(bytes, start, line, index, maxLines, maxLength, runKinds, check) {
if (!seek(bytes, start)) return -1;
const first = next;
let at = first;
const last = Math.min(count, first + maxLines);
while (at < last) {
const code = LK[at];
if (code < 0 || LE[at] - LS[at] > maxLength) break;
const mode = runKinds[code];
if (mode === ${RUN_STOP}) break;
if (mode === ${RUN_CHECK}) {
const named = FIRST[code];
const w = named === undefined ? -1 : named[LR[at]];
const text = w < 0 ? "" : asciiText(IN, SO[w], SO[w] + SL[w]);
if (!check(code, text, line + at - first, index + at - first)) break;
}
at++;
}
if (at === first) return -1;
commitRun(D, B, first, at - first, line, index);
next = at;
return LE[at - 1] + base + 1;
}
function read(bytes, start, line, index) {
if (!seek(bytes, start)) return fallback(bytes, start, line, index);
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
read.run = run;
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
  >(
    {
      asciiText,
      flatSlot: KindColumns.flatSlot,
      commitRun: commitDecodedRun,
      internString: internDecodedString,
    },
    readerSource(layouts),
    compile,
  );
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
