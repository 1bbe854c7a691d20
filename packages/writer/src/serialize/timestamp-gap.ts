import { isDigits, putDigits, putU64 } from "./byte-values.js";

/** Room left for a leading timestamp: the widest u64 has 20 digits. */
export const TIMESTAMP_GAP = 20;

/**
 * Completes a line whose leading timestamp was left as a TIMESTAMP_GAP-byte gap at `gapAt` while
 * the rest, up to `end`, was written: the timestamp (or, when absent, one clock reading — taken
 * only now that the line is sure to be written) goes into the gap and the rest moves up behind it.
 * Returns the line's new end, or -1 for a timestamp or reading that is not a u64.
 */
export function fillTimestampGap(
  bytes: Uint8Array,
  gapAt: number,
  end: number,
  timestamp: unknown,
  now: () => number,
): number {
  let digitsEnd: number;
  if (timestamp === undefined) {
    const reading = now();
    if (!isDigits(reading)) return -1;
    digitsEnd = putDigits(bytes, gapAt, reading);
  } else {
    digitsEnd = putU64(bytes, gapAt, timestamp);
    if (digitsEnd < 0) return -1;
  }
  const restStart = gapAt + TIMESTAMP_GAP;
  bytes.copyWithin(digitsEnd, restStart, end);
  return end - (restStart - digitsEnd);
}
