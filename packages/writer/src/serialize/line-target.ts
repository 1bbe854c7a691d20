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

/** A constant ASCII fragment pre-split into little-endian 32-bit words and a 0–3 byte tail. */
export class Fragment {
  readonly words: Int32Array;
  readonly tail: Uint8Array;
  readonly length: number;
  /** The fragment as text, for the string path. */
  readonly text: string;
  constructor(text: string) {
    this.text = text;
    const length = text.length;
    const count = length >> 2;
    this.words = new Int32Array(count);
    for (let index = 0; index < count; index++) {
      const at = index * 4;
      this.words[index] =
        text.charCodeAt(at) |
        (text.charCodeAt(at + 1) << 8) |
        (text.charCodeAt(at + 2) << 16) |
        (text.charCodeAt(at + 3) << 24);
    }
    this.tail = new Uint8Array(length - count * 4);
    for (let index = 0; index < this.tail.length; index++)
      this.tail[index] = text.charCodeAt(count * 4 + index);
    this.length = length;
  }
}

/** Copies a constant fragment (word stores are several times faster than byte stores here). */
export function putFragment(target: LineTarget, pos: number, fragment: Fragment): number {
  const view = target.view;
  const words = fragment.words;
  const count = words.length;
  for (let index = 0; index < count; index++) view.setInt32(pos + index * 4, words[index] as number, true);
  const tail = fragment.tail;
  const bytes = target.bytes;
  const at = pos + count * 4;
  for (let index = 0; index < tail.length; index++) bytes[at + index] = tail[index] as number;
  return pos + fragment.length;
}
