// Chunked line framing (spec §4.1, §4.2) without `readline`. Bytes are cut at the chunk's last LF,
// so no UTF-8 sequence is ever split, and the rest is carried into the next chunk; the consumer
// decodes (see LineProcessor.processBytes). Line numbers are not tracked here: every piece stands
// for a run of physical lines in order, and the consumer counts them.

/** Complete lines, each terminated by "\n" — except a final piece flagged `unterminated`. */
export interface TextPiece {
  readonly type: "text";
  readonly text: string;
  /** True only for the last line of the source when it has no terminating LF. */
  readonly unterminated: boolean;
}

/** Complete lines as UTF-8 bytes, each terminated by LF — except a final piece flagged `unterminated`. */
export interface BytesPiece {
  readonly type: "bytes";
  /** Valid only until the next chunk is pushed (file and stream chunk buffers are reused). */
  readonly bytes: Uint8Array;
  readonly unterminated: boolean;
}

/** One physical line that is not valid UTF-8. */
export interface InvalidUtf8Piece {
  readonly type: "invalid_utf8";
}

/** One physical line longer than the limit; its bytes were dropped, not buffered. */
export interface TooLongPiece {
  readonly type: "too_long";
  readonly length: number;
}

export type LinePiece = TextPiece | BytesPiece | InvalidUtf8Piece | TooLongPiece;

const LF = 10;

function concatBytes(parts: readonly Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const joined = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

/** A copy, also of a Node Buffer (whose own `slice` returns a view). */
function copyBytes(bytes: Uint8Array, start: number, end: number): Uint8Array {
  return Uint8Array.prototype.slice.call(bytes, start, end);
}

/** Splits UTF-8 bytes into runs of whole lines, still undecoded. */
export class ByteLineSplitter {
  readonly #maxLineLength: number;
  #pending: Uint8Array[] = [];
  #pendingLength = 0;
  #skipping = false;

  constructor(maxLineLength: number) {
    this.#maxLineLength = maxLineLength;
  }

  push(chunk: Uint8Array, pieces: LinePiece[]): void {
    let offset = 0;
    if (this.#skipping) {
      const lineFeed = chunk.indexOf(LF);
      if (lineFeed === -1) return;
      offset = lineFeed + 1;
      this.#skipping = false;
    }
    const lastLineFeed = chunk.lastIndexOf(LF);
    if (lastLineFeed < offset) {
      // Copy: file chunks come from one reused buffer, and some streams reuse theirs too.
      this.#hold(copyBytes(chunk, offset, chunk.length), pieces);
      return;
    }
    if (this.#pendingLength > 0) {
      // Only the carried line is joined with its end, never the whole chunk.
      const firstLineFeed = chunk.indexOf(LF, offset);
      this.#pending.push(chunk.subarray(offset, firstLineFeed + 1));
      const joined = concatBytes(this.#pending, this.#pendingLength + firstLineFeed + 1 - offset);
      this.#pending = [];
      this.#pendingLength = 0;
      pieces.push({ type: "bytes", bytes: joined, unterminated: false });
      offset = firstLineFeed + 1;
    }
    const region = chunk.subarray(offset, lastLineFeed + 1);
    if (region.length > 0) pieces.push({ type: "bytes", bytes: region, unterminated: false });
    if (lastLineFeed + 1 < chunk.length) {
      // Copy: some streams reuse their chunk buffers.
      this.#hold(copyBytes(chunk, lastLineFeed + 1, chunk.length), pieces);
    }
  }

  end(pieces: LinePiece[]): void {
    if (this.#skipping || this.#pendingLength === 0) return;
    const rest = concatBytes(this.#pending, this.#pendingLength);
    this.#pending = [];
    this.#pendingLength = 0;
    pieces.push({ type: "bytes", bytes: rest, unterminated: true });
  }

  #hold(bytes: Uint8Array, pieces: LinePiece[]): void {
    if (bytes.length === 0) return;
    this.#pending.push(bytes);
    this.#pendingLength += bytes.length;
    if (this.#pendingLength > this.#maxLineLength) {
      pieces.push({ type: "too_long", length: this.#pendingLength });
      this.#pending = [];
      this.#pendingLength = 0;
      this.#skipping = true;
    }
  }
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** One line's bytes (no LF) as text, strictly (a leading BOM kept); undefined when not UTF-8. */
export function decodeUtf8Line(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Decodes whole lines of UTF-8 strictly, keeping a leading BOM (it must fail line 1): one text
 * piece when all is valid, else the valid runs with one `invalid_utf8` piece per bad line.
 */
export function decodeUtf8Lines(region: Uint8Array, final: boolean, pieces: LinePiece[]): void {
  try {
    pieces.push({ type: "text", text: strictUtf8.decode(region), unterminated: final });
    return;
  } catch {
    // Find which physical lines hold the bad bytes.
  }
  let good = "";
  let start = 0;
  while (start < region.length) {
    const lineFeed = region.indexOf(LF, start);
    const end = lineFeed === -1 ? region.length : lineFeed + 1;
    try {
      good += strictUtf8.decode(region.subarray(start, end));
    } catch {
      if (good.length > 0) pieces.push({ type: "text", text: good, unterminated: false });
      good = "";
      pieces.push({ type: "invalid_utf8" });
    }
    start = end;
  }
  if (good.length > 0) pieces.push({ type: "text", text: good, unterminated: final && !good.endsWith("\n") });
}

/** The same framing for already decoded text chunks; lone surrogates count as invalid UTF-8. */
export class TextLineSplitter {
  readonly #maxLineLength: number;
  #pending = "";
  #skipping = false;

  constructor(maxLineLength: number) {
    this.#maxLineLength = maxLineLength;
  }

  push(chunk: string, pieces: LinePiece[]): void {
    let offset = 0;
    if (this.#skipping) {
      const lineFeed = chunk.indexOf("\n");
      if (lineFeed === -1) return;
      offset = lineFeed + 1;
      this.#skipping = false;
    }
    const lastLineFeed = chunk.lastIndexOf("\n");
    if (lastLineFeed < offset) {
      this.#hold(chunk.slice(offset), pieces);
      return;
    }
    const region = this.#pending + chunk.slice(offset, lastLineFeed + 1);
    this.#pending = "";
    pushCheckedText(region, false, pieces);
    if (lastLineFeed + 1 < chunk.length) this.#hold(chunk.slice(lastLineFeed + 1), pieces);
  }

  end(pieces: LinePiece[]): void {
    if (this.#skipping || this.#pending.length === 0) return;
    const rest = this.#pending;
    this.#pending = "";
    pushCheckedText(rest, true, pieces);
  }

  #hold(text: string, pieces: LinePiece[]): void {
    if (text.length === 0) return;
    this.#pending += text;
    if (this.#pending.length > this.#maxLineLength) {
      pieces.push({ type: "too_long", length: this.#pending.length });
      this.#pending = "";
      this.#skipping = true;
    }
  }
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function isWellFormedText(text: string): boolean {
  const native = (text as { isWellFormed?: () => boolean }).isWellFormed;
  return native ? native.call(text) : !LONE_SURROGATE.test(text);
}

/** Pushes decoded text, splitting out lines that hold lone surrogates (not encodable as UTF-8). */
export function pushCheckedText(text: string, final: boolean, pieces: LinePiece[]): void {
  if (isWellFormedText(text)) {
    if (text.length > 0) pieces.push({ type: "text", text, unterminated: final && !text.endsWith("\n") });
    return;
  }
  let good = "";
  let start = 0;
  while (start < text.length) {
    const lineFeed = text.indexOf("\n", start);
    const end = lineFeed === -1 ? text.length : lineFeed + 1;
    const line = text.slice(start, end);
    if (isWellFormedText(line)) {
      good += line;
    } else {
      if (good.length > 0) pieces.push({ type: "text", text: good, unterminated: false });
      good = "";
      pieces.push({ type: "invalid_utf8" });
    }
    start = end;
  }
  if (good.length > 0) pieces.push({ type: "text", text: good, unterminated: final && !good.endsWith("\n") });
}
