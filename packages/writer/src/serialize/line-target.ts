// Byte fast path: the frequent lines (op, tensor, memory, device_memory, span_start, span_end)
// written straight into the sink's byte buffer (byte-lines.ts, span-line-writers.ts), with no
// intermediate string, no per-line allocation and no UTF-8 encoder call. It covers the common case
// only (see byte-values.ts); on anything else a writer returns -1 and the session takes the string
// serializers (text-lines.ts, span-line-writers.ts), which validate, throw the field-naming errors and
// produce the same canonical bytes. A writer only stores bytes past the sink's committed offset, so a bail-out leaves
// nothing behind: the line emitter commits the returned end offset, or nothing.
//
// This file: the target (a buffer with a DataView over it) and constant key fragments pre-split
// into 32-bit words.
//
// Space: a line writer's `limit` is the buffer length minus FIXED_RESERVE. It checks `pos` against
// `limit` before its first byte, and every variable-length piece (a string, an array element) checks
// again; constant key fragments and integers are written unchecked, since whatever follows a check
// (constants plus at most a few integers) always fits. (Constant fragments go through a DataView,
// which throws past its end, so the checks are what keeps a writer in bounds.)

/** Bytes kept free past the last check: all constant fragments of a line plus its integers. */
export const FIXED_RESERVE = 512;

/** A byte buffer and a DataView over the same bytes (constant fragments go in 4-byte words). */
export interface LineTarget {
  readonly bytes: Uint8Array;
  readonly view: DataView;
}

export function lineTarget(bytes: Uint8Array): LineTarget {
  return { bytes, view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}

const scratch = new DataView(new ArrayBuffer(8));

/** The 32-bit little-endian word of `text` at `at`. */
function asciiWord(text: string, at: number): number {
  return (
    text.charCodeAt(at) |
    (text.charCodeAt(at + 1) << 8) |
    (text.charCodeAt(at + 2) << 16) |
    (text.charCodeAt(at + 3) << 24)
  );
}

/**
 * The double whose little-endian bytes are `text`'s 8 characters at `at`. For ASCII bytes it is
 * never a NaN (its exponent would need a byte of 0x7f with 0xf0 set in the next), so it is stored
 * back bit for bit.
 */
function asciiDouble(text: string, at: number): number {
  for (let index = 0; index < 8; index++) scratch.setUint8(index, text.charCodeAt(at + index));
  return scratch.getFloat64(0, true);
}

function checkAscii(text: string): void {
  for (let index = 0; index < text.length; index++) {
    if (text.charCodeAt(index) > 0x7f)
      throw new Error(`a line fragment must be ASCII: ${JSON.stringify(text)}`);
  }
}

/**
 * A constant ASCII fragment pre-split into words: from 8 bytes on, 8-byte words (as doubles, stored
 * with one `setFloat64` each: measured ~40 % less time than 4-byte words), the last one ending at
 * the fragment's end (it overlaps the one before, writing the same bytes again); from 4 bytes, two
 * 4-byte words the same way; below that, bytes.
 */
export class Fragment {
  readonly doubles: Float64Array;
  readonly words: Int32Array;
  readonly tail: Uint8Array;
  readonly length: number;
  /** The fragment as text, for the string path. */
  readonly text: string;
  constructor(text: string) {
    checkAscii(text);
    this.text = text;
    const length = text.length;
    this.length = length;
    const count = length >= 8 ? Math.ceil(length / 8) : 0;
    this.doubles = new Float64Array(count);
    for (let index = 0; index < count; index++) {
      this.doubles[index] = asciiDouble(text, Math.min(index * 8, length - 8));
    }
    this.words = new Int32Array(
      length >= 4 && length < 8 ? [asciiWord(text, 0), asciiWord(text, length - 4)] : [],
    );
    this.tail = new Uint8Array(length < 4 ? Array.from(text, (character) => character.charCodeAt(0)) : []);
  }
}

/** Copies a constant fragment (word stores are several times faster than byte stores here). */
export function putFragment(target: LineTarget, pos: number, fragment: Fragment): number {
  const view = target.view;
  const length = fragment.length;
  if (length >= 8) {
    const doubles = fragment.doubles;
    const last = doubles.length - 1;
    for (let index = 0; index < last; index++)
      view.setFloat64(pos + index * 8, doubles[index] as number, true);
    view.setFloat64(pos + length - 8, doubles[last] as number, true);
  } else if (length >= 4) {
    view.setInt32(pos, fragment.words[0] as number, true);
    view.setInt32(pos + length - 4, fragment.words[1] as number, true);
  } else {
    const tail = fragment.tail;
    const bytes = target.bytes;
    for (let index = 0; index < length; index++) bytes[pos + index] = tail[index] as number;
  }
  return pos + length;
}

/**
 * Generated code that writes the constant ASCII `text` at `at` and moves `at` past it, through the
 * locals `view` and `bytes` of the target: the words of a Fragment as literals, no loop and no
 * loads (a measured ~5x faster than `putFragment` for a line's constant keys).
 */
export function fragmentSource(text: string): string {
  checkAscii(text);
  const length = text.length;
  let code = "";
  if (length >= 8) {
    for (let at = 0; at < length; at += 8) {
      const from = Math.min(at, length - 8);
      code += `view.setFloat64(at + ${from}, ${asciiDouble(text, from)}, true);\n`;
    }
  } else if (length >= 4) {
    code += `view.setInt32(at, ${asciiWord(text, 0)}, true);\n`;
    if (length > 4) code += `view.setInt32(at + ${length - 4}, ${asciiWord(text, length - 4)}, true);\n`;
  } else {
    for (let at = 0; at < length; at++) code += `bytes[at + ${at}] = ${text.charCodeAt(at)};\n`;
  }
  return `${code}at += ${length};\n`;
}
