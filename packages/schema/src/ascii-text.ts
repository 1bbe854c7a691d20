// A JavaScript string from ASCII bytes, for the short strings of trace lines.

/** Scratch argument lists for String.fromCharCode, one per length up to SCRATCH_BYTES. */
const SCRATCH_BYTES = 64;
const scratch: number[][] = Array.from({ length: SCRATCH_BYTES + 1 }, (_, length) =>
  new Array<number>(length).fill(0),
);
const latin1 = new TextDecoder("latin1");

/**
 * A fresh string of the ASCII bytes source[start..stop): a flat string of its own, so that it does
 * not keep `source` alive. fromCharCode over a reused argument list is several times faster than
 * TextDecoder for the short strings of trace lines.
 */
export function asciiText(source: Uint8Array, start: number, stop: number): string {
  const length = stop - start;
  if (length > SCRATCH_BYTES) return latin1.decode(source.subarray(start, stop));
  const codes = scratch[length] as number[];
  for (let index = 0; index < length; index++) codes[index] = source[start + index] as number;
  return String.fromCharCode.apply(null, codes);
}
