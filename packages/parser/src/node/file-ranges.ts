// Cuts a trace file into byte ranges of whole lines for a parallel read: each range but the first
// starts right after a line feed, so no line (and no UTF-8 sequence) is split between two readers.
import { closeSync, openSync, readSync } from "node:fs";

export interface ByteRange {
  start: number;
  end: number;
}

const LF = 10;
const PROBE_BYTES = 1 << 16;

/** The offset just past the first line feed at or after `from` (or `size` when there is none). */
function nextLineStart(fd: number, from: number, size: number, probe: Uint8Array): number {
  let position = from;
  while (position < size) {
    const read = readSync(fd, probe, 0, probe.length, position);
    if (read === 0) break;
    const lineFeed = probe.subarray(0, read).indexOf(LF);
    if (lineFeed >= 0) return position + lineFeed + 1;
    position += read;
  }
  return size;
}

/**
 * Ranges of about `rangeBytes` covering the file's first `size` bytes, each ending just past a line
 * feed except the last (which ends the file). A line longer than a range makes its range longer.
 */
export function splitAtLines(path: string, size: number, rangeBytes: number): ByteRange[] {
  const ranges: ByteRange[] = [];
  const fd = openSync(path, "r");
  try {
    const probe = new Uint8Array(PROBE_BYTES);
    let start = 0;
    while (start < size) {
      const end = start + rangeBytes >= size ? size : nextLineStart(fd, start + rangeBytes - 1, size, probe);
      ranges.push({ start, end });
      start = end;
    }
  } finally {
    closeSync(fd);
  }
  return ranges;
}

/**
 * The bytes of [start, end) in reads on the same grid as a sequential read of the whole file
 * (`chunkBytes` from offset 0), into one reused buffer: take each chunk before asking for the next.
 */
export function* readRange(fd: number, range: ByteRange, chunkBytes: number): Generator<Uint8Array> {
  const buffer = new Uint8Array(chunkBytes);
  let position = range.start;
  while (position < range.end) {
    const gridEnd = (Math.floor(position / chunkBytes) + 1) * chunkBytes;
    const length = Math.min(gridEnd, range.end) - position;
    const read = readSync(fd, buffer, 0, length, position);
    if (read === 0) throw new Error(`file ended at byte ${position}, before the ${range.end} bytes it had`);
    position += read;
    yield buffer.subarray(0, read);
  }
}
