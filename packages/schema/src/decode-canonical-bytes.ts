// The canonical-bytes tier of line decoding: a reader for lines in canonical form (spec §7: the reference's key
// order, plain literals), which is what candle-graph and @cg/writer write. It reads the UTF-8 bytes
// directly — no text decoding, no JSON.parse, no intermediate object — and accepts only the
// canonical grammar of each non-meta kind, ASCII only: every byte is checked, so an accepted line
// is also valid UTF-8. JSON white space between tokens is allowed (writers such as Python's
// json.dumps put a space after `,` and `:`); it costs nothing on compact lines, because it is only
// looked for where the expected byte was not found. Anything else (an escape, a non-ASCII character,
// a `null`, an unknown, missing, repeated or reordered key, a number above 15 digits, an exponent in
// a u64, a `meta` line) returns `undefined` and the caller falls back to `decodeTraceLine`, which
// produces the result or the error. For every line it accepts, the event is the one
// `decodeTraceLine` returns for the same text: same values, keys in line order (property-tested).
//
// The token readers, the string cache and the cursor are in canonical-cursor.ts; the per-kind
// readers are generated from the layout table at module load (canonical-reader-source.ts).

import { begin, closeLine, isOk } from "./canonical-cursor.js";
import { type CanonicalEventReader, compileCanonicalEventReader } from "./canonical-reader-source.js";
import { EVENT_LAYOUTS, type EventLayoutTable } from "./event-layouts.js";
import type { TraceEvent } from "./events.js";
import type { SourceCompiler } from "./generated-function.js";

const readEvent = compileCanonicalEventReader(EVENT_LAYOUTS);

/** `decodeCanonicalLine` over an event reader. */
function decodeWith(
  read: CanonicalEventReader,
  source: Uint8Array,
  start: number,
  stop: number,
): TraceEvent | undefined {
  begin(source, start, stop);
  const event = read();
  return isOk() && event !== undefined && closeLine() === stop ? event : undefined;
}

/**
 * A `decodeCanonicalLine` for another layout table (a test's modified table, a neighbouring schema
 * revision), and for a chosen source compiler.
 * @internal
 */
export function canonicalLineDecoder(
  layouts: EventLayoutTable,
  compile?: SourceCompiler,
): (source: Uint8Array, start?: number, stop?: number) => TraceEvent | undefined {
  const read = compileCanonicalEventReader(layouts, compile);
  return (source, start = 0, stop = source.length) => decodeWith(read, source, start, stop);
}

/**
 * Decodes the UTF-8 line `source[start..stop)` (no line feed) when it is a non-meta event line in
 * canonical form: the reference's key order and plain literals, ASCII, no escapes. JSON white space
 * between tokens and around the line is allowed. Returns `undefined` for anything else, including
 * lines that are valid but not canonical — decode those as text with `decodeTraceLine`. Never
 * throws. The event is exactly the one `decodeTraceLine` returns for the same line. A reference to
 * `source` is kept until the next call with another buffer (reads go through a view of it).
 */
export function decodeCanonicalLine(
  source: Uint8Array,
  start = 0,
  stop = source.length,
): TraceEvent | undefined {
  return decodeWith(readEvent, source, start, stop);
}

/** Where `readCanonicalLine` leaves its result; one object can be reused for every line. */
export interface CanonicalLine {
  /** The decoded event (left as it was when the line is not canonical). */
  event: TraceEvent | undefined;
  /** Index of the line's terminating LF, or the length of the input when the line has none. */
  end: number;
}

const LF = 0x0a;

/**
 * The streaming form of `decodeCanonicalLine`, for readers holding many lines in one buffer: reads
 * the canonical event line that starts at `start` and finds its end on the way (trailing white
 * space such as the CR of CRLF is allowed), so the caller needs no separate search for the line
 * feed. Returns false, and the caller decodes the line as text, for anything that is not one
 * canonical line followed by LF or the end of `source`.
 */
export function readCanonicalLine(source: Uint8Array, start: number, into: CanonicalLine): boolean {
  const length = source.length;
  begin(source, start, length);
  const event = readEvent();
  if (!isOk() || event === undefined) return false;
  const after = closeLine();
  if (after < 0 || (after < length && source[after] !== LF)) return false;
  into.event = event;
  into.end = after;
  return true;
}
