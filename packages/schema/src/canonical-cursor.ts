// The token layer of the canonical-bytes tier (decode-canonical-bytes.ts): a cursor over the UTF-8 bytes of one line and
// readers for the pieces of a canonical line — key literals compared a word at a time, strings
// scanned a word at a time and interned, plain integers, booleans, floats, lists — with JSON white
// space between tokens looked for only where the expected byte was not found.
//
// Strings are interned in a small direct-mapped cache keyed by a hash computed while scanning:
// trace lines repeat the same ids, names, dtypes and devices, so most strings cost a compare and
// no allocation.
import { asciiText } from "./ascii-text.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
/** Up to 15 digits every integer is exact as a number; longer ones go to the exact tier (bigints). */
const MAX_PLAIN_DIGITS = 15;

const EMPTY = new Uint8Array(0);

// The cursor of the line being read. Decoding is synchronous and never re-entered, so one set of
// module variables serves every call; hot loops copy them into locals. `ok` turns false at the
// first deviation; readers then return placeholders and the caller discards the line.
let input: Uint8Array = EMPTY;
/** A view of `input` for reading four key bytes at once. */
let view: DataView<ArrayBufferLike> = new DataView(EMPTY.buffer);
let position = 0;
let end = 0;
/** The smaller of `end` and the input's length: how far whole words may be read. */
let wordEnd = 0;
let ok = true;

/** JSON white space within a line: space, tab, CR (a line never holds an LF). */
function isSpace(code: number | undefined): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d;
}

/**
 * Steps over white space at the cursor; true when there was some. Canonical lines have none, so
 * readers only call this after the byte they expected was not there: white space between tokens
 * costs nothing until a line has some.
 */
function skipSpaces(): boolean {
  const start = position;
  while (isSpace(input[position])) position++;
  return position !== start;
}

/** An ASCII literal (a key with its punctuation, e.g. `,"name":`) as little-endian 32-bit words. */
export interface Literal {
  readonly length: number;
  /** Bytes 4i..4i+3 as one little-endian word; the last word is padded with zero bytes. */
  readonly words: Int32Array;
  /** Keeps the literal's bytes of the last word (all ones when it is full). */
  readonly lastMask: number;
  /**
   * The literal as white space may break it up (`matchesSpaced`): its punctuation bytes, around
   * which white space may stand, and the runs of bytes between them, which it may not enter.
   * Undefined for a literal without punctuation.
   */
  readonly pieces: readonly LiteralPiece[] | undefined;
}

/** A punctuation byte of a literal (`punctuation` ≥ 0), or a run of other bytes (`run`). */
export interface LiteralPiece {
  readonly punctuation: number;
  readonly run: Literal | undefined;
}

export function ascii(literal: string): Literal {
  return wordsOf(literal, piecesOf(literal));
}

function wordsOf(literal: string, pieces: readonly LiteralPiece[] | undefined): Literal {
  const count = (literal.length + 3) >> 2;
  const words = new Int32Array(count);
  for (let index = 0; index < literal.length; index++) {
    const word = index >> 2;
    words[word] = (words[word] as number) | (literal.charCodeAt(index) << ((index & 3) * 8));
  }
  const tail = literal.length - (count - 1) * 4;
  const lastMask = tail === 4 ? -1 : (1 << (tail * 8)) - 1;
  return { length: literal.length, words, lastMask, pieces };
}

function piecesOf(literal: string): LiteralPiece[] | undefined {
  const pieces: LiteralPiece[] = [];
  let from = 0;
  for (let index = 0; index <= literal.length; index++) {
    const code = index < literal.length ? literal.charCodeAt(index) : -1;
    if (code !== -1 && !isPunctuation(code)) continue;
    if (index > from) pieces.push({ punctuation: -1, run: wordsOf(literal.slice(from, index), undefined) });
    if (code !== -1) pieces.push({ punctuation: code, run: undefined });
    from = index + 1;
  }
  return pieces.some((piece) => piece.punctuation >= 0) ? pieces : undefined;
}

/** True when `literal` is at the cursor. */
function matches(literal: Literal): boolean {
  return matchesAt(literal, position);
}

/** True when `literal` is at `start` (within the line). */
function matchesAt(literal: Literal, start: number): boolean {
  if (start + literal.length > end) return false;
  const words = literal.words;
  const last = words.length - 1;
  if (start + last * 4 + 4 > input.length) return matchesBytewise(literal, start);
  const source = view;
  for (let index = 0; index < last; index++) {
    if (source.getInt32(start + index * 4, true) !== words[index]) return false;
  }
  // The last word's bytes past the literal belong to what follows: masked off.
  return (source.getInt32(start + last * 4, true) & literal.lastMask) === words[last];
}

/** `matches` where a whole-word read would run past the end of the input. */
function matchesBytewise(literal: Literal, start: number): boolean {
  const words = literal.words;
  for (let index = 0; index < literal.length; index++) {
    const expected = ((words[index >> 2] as number) >>> ((index & 3) * 8)) & 0xff;
    if (input[start + index] !== expected) return false;
  }
  return true;
}

// Two string caches, each direct-mapped with 4096 slots. Strings of up to 12 bytes (ids, dtypes,
// devices, op names, enum values: nearly all of them) are compared as three masked words read
// straight from the input; longer ones byte by byte against a copy.
const SLOT_BITS = 12;
const SLOTS = 1 << SLOT_BITS;
const SHORT_BYTES = 12;
/** The longest string the long cache keeps. */
const LONG_CACHE_BYTES = 256;
/** Per slot: length, then the three words of the bytes (zero past the length); -1 length = empty. */
const shortKeys = new Int32Array(SLOTS * 4).fill(-1);
const shortStrings: string[] = new Array<string>(SLOTS).fill("");
const longBytes: Uint8Array[] = new Array<Uint8Array>(SLOTS).fill(EMPTY);
const longStrings: string[] = new Array<string>(SLOTS).fill("");
/** The enum variant list a cached short string was found in, so repeated values skip the search. */
const shortEnums: (readonly string[] | undefined)[] = new Array(SLOTS).fill(undefined);
/** The index of a slot's string in `shortEnums[slot]`. */
const shortEnumIndexes = new Int32Array(SLOTS);
/** The short-cache slot of the string readString returned last; -1 when it was long. */
let lastSlot = -1;
/**
 * Per short-cache slot, a number a column reader attached to the slot's string (its id in a batch's
 * dictionary) and the batch generation it holds for; a slot given another string forgets it.
 */
const slotNotes = new Int32Array(SLOTS);
const slotNoteGenerations = new Int32Array(SLOTS).fill(-1);

/** Masks keeping the first 0..4 bytes of a little-endian word. */
const BYTE_MASKS = new Int32Array([0, 0xff, 0xffff, 0xffffff, -1]);

/** Bytes from..from+3 of the string at `start` as a little-endian word (zero past its `length`). */
function wordAt(start: number, length: number, from: number): number {
  const available = length - from;
  if (available <= 0) return 0;
  if (start + from + 4 <= input.length) {
    return view.getInt32(start + from, true) & (BYTE_MASKS[Math.min(available, 4)] as number);
  }
  let word = 0;
  for (let index = 0; index < 4 && index < available; index++) {
    word |= (input[start + from + index] as number) << (index * 8);
  }
  return word;
}

/** A fresh string of the ASCII bytes input[start..stop) (see asciiText). */
function asciiString(start: number, stop: number): string {
  return asciiText(input, start, stop);
}

/** The string of `length` bytes at `start` whose words (zero past the length) are given. */
function shortString(start: number, length: number, word0: number, word1: number, word2: number): string {
  const hash = Math.imul(
    word0 ^ Math.imul(word1, 0x9e3779b1) ^ Math.imul(word2 ^ length, 0x85ebca77),
    0x27d4eb2d,
  );
  const slot = hash >>> (32 - SLOT_BITS);
  const key = slot * 4;
  lastSlot = slot;
  if (
    shortKeys[key] === length &&
    shortKeys[key + 1] === word0 &&
    shortKeys[key + 2] === word1 &&
    shortKeys[key + 3] === word2
  ) {
    return shortStrings[slot] as string;
  }
  const text = asciiString(start, start + length);
  shortKeys[key] = length;
  shortKeys[key + 1] = word0;
  shortKeys[key + 2] = word1;
  shortKeys[key + 3] = word2;
  shortStrings[slot] = text;
  shortEnums[slot] = undefined;
  slotNoteGenerations[slot] = -1;
  return text;
}

function longString(start: number, stop: number): string {
  lastSlot = -1;
  const source = input;
  const length = stop - start;
  // Rare, long strings are not kept: the cache must not hold on to a megabyte-long name.
  if (length > LONG_CACHE_BYTES) return asciiString(start, stop);
  const hash = Math.imul(
    length ^
      Math.imul(source[stop - 1] as number, 0x9e3779b1) ^
      Math.imul(view.getInt32(stop - 4, true), 0x85ebca77),
    0x27d4eb2d,
  );
  const slot = hash >>> (32 - SLOT_BITS);
  const cached = longBytes[slot] as Uint8Array;
  if (cached.length === length) {
    let index = 0;
    while (index < length && cached[index] === source[start + index]) index++;
    if (index === length) return longStrings[slot] as string;
  }
  // Uint8Array.prototype.slice copies even for a Node Buffer, whose own slice returns a view.
  longBytes[slot] = Uint8Array.prototype.slice.call(source, start, stop);
  const text = asciiString(start, stop);
  longStrings[slot] = text;
  return text;
}

/** The string input[start..stop), already checked. */
function interned(start: number, stop: number): string {
  const length = stop - start;
  if (length > SHORT_BYTES) return longString(start, stop);
  return shortString(
    start,
    length,
    wordAt(start, length, 0),
    wordAt(start, length, 4),
    wordAt(start, length, 8),
  );
}

// The generated readers compare each key literal with the words below, the literal's own words
// written into their source as constants (no loop, no loads of the literal), and call `expect` or
// `optionalKey` only where that fast test fails.

/**
 * True when `wordBytes` bytes from the cursor (a key's length rounded up to whole words) lie within
 * the line and the input, so they can be read as whole words. Kept this small so that V8 inlines it
 * into the large generated readers, whose inlining budget is spent elsewhere: called as a function
 * it cost a call per key. A key that fits only without the rounding takes the bytewise path.
 */
export function keyFits(wordBytes: number): boolean {
  return position + wordBytes <= wordEnd;
}

/** The four bytes at the cursor plus `offset` as a little-endian word (after `keyFits`). */
export function keyWord(offset: number): number {
  return view.getInt32(position + offset, true);
}

/** Steps over a key of `length` bytes that the fast test matched; false once the line has deviated. */
export function stepOver(length: number): boolean {
  position += length;
  return ok;
}

/**
 * Expects `literal` (a key with its punctuation) at the cursor; false once the line has deviated
 * (here or at an earlier value), so a reader stops at the first deviation. Reading on would take
 * paths a canonical file never takes, and V8 would throw away the readers' optimized code for them.
 */
export function expect(literal: Literal): boolean {
  if (matches(literal)) {
    position += literal.length;
    return ok;
  }
  if (ok && matchesSpaced(literal)) return true;
  ok = false;
  return false;
}

/** True when the optional member `literal` comes next (and steps over it). */
export function optionalKey(literal: Literal): boolean {
  if (matches(literal)) {
    position += literal.length;
    return true;
  }
  return matchesSpaced(literal);
}

/**
 * The generated readers' optional keys: `matched` is their fast test of the literal's words; on a
 * miss the key is looked for as `optionalKey` does (white space, or absent).
 */
export function optionalMember(matched: boolean, literal: Literal): boolean {
  if (matched) {
    position += literal.length;
    return true;
  }
  return optionalKey(literal);
}

/** `{`, `,` and `:`: the literal's bytes that may have JSON white space on either side. */
function isPunctuation(code: number): boolean {
  return code === 0x7b || code === 0x2c || code === 0x3a;
}

/**
 * `literal` at the cursor with white space around its punctuation (`, "name": ` for `,"name":`),
 * as other writers put it; steps over it and the white space after it. On a mismatch the cursor
 * stays where it was.
 */
function matchesSpaced(literal: Literal): boolean {
  const pieces = literal.pieces;
  // Without punctuation there is nowhere for white space to stand: `matches` has said no.
  if (pieces === undefined) return false;
  let cursor = position;
  for (let index = 0; index < pieces.length; index++) {
    const piece = pieces[index] as LiteralPiece;
    const punctuation = piece.punctuation;
    if (punctuation >= 0) {
      while (isSpace(input[cursor])) cursor++;
      if (input[cursor] !== punctuation || cursor >= end) return false;
      cursor++;
      while (isSpace(input[cursor])) cursor++;
    } else {
      // A run of other bytes compared a word at a time: byte by byte, a file with a space after
      // every comma spent a sixth of its read here.
      const run = piece.run as Literal;
      if (!matchesAt(run, cursor)) return false;
      cursor += run.length;
    }
  }
  position = cursor;
  return true;
}

/**
 * The bytes of a word that end or rule out a fast string: `"`, `\\`, controls below 0x20 and
 * non-ASCII bytes, as the high bit of each such byte. The lowest flagged byte is exact (borrows
 * only disturb the bytes above the first match), which is all that is used.
 */
function stringStops(word: number): number {
  const quote = word ^ 0x22222222;
  const backslash = word ^ 0x5c5c5c5c;
  return (
    (((quote - 0x01010101) & ~quote) |
      ((backslash - 0x01010101) & ~backslash) |
      ((word - 0x20202020) & ~word) |
      word) &
    0x80808080
  );
}

/** Index (0..3) of the lowest flagged byte of a non-zero stringStops result. */
function firstFlagged(flags: number): number {
  return (31 - Math.clz32(flags & -flags)) >> 3;
}

/** Ends a short string found by the word scan: its stop must be the closing quote. */
function endShortString(start: number, length: number, word0: number, word1: number, word2: number): string {
  if (input[start + length] !== QUOTE) {
    ok = false; // an escape, a control or a non-ASCII byte: the other tiers decide
    return "";
  }
  position = start + length + 1;
  if (length < 4) return shortString(start, length, word0 & (BYTE_MASKS[length] as number), 0, 0);
  if (length < 8) return shortString(start, length, word0, word1 & (BYTE_MASKS[length - 4] as number), 0);
  return shortString(start, length, word0, word1, word2 & (BYTE_MASKS[length - 8] as number));
}

/**
 * A string value of ASCII without escapes or controls (anything else goes to the other tiers).
 * Short strings are scanned a word at a time, and those words are their cache key.
 */
export function readString(): string {
  const source = input;
  if (source[position] !== QUOTE && !(skipSpaces() && source[position] === QUOTE)) {
    ok = false;
    return "";
  }
  const start = position + 1;
  if (start + SHORT_BYTES <= source.length) {
    const word0 = view.getInt32(start, true);
    let flags = stringStops(word0);
    if (flags !== 0) return endShortString(start, firstFlagged(flags), word0, 0, 0);
    const word1 = view.getInt32(start + 4, true);
    flags = stringStops(word1);
    if (flags !== 0) return endShortString(start, 4 + firstFlagged(flags), word0, word1, 0);
    const word2 = view.getInt32(start + 8, true);
    flags = stringStops(word2);
    if (flags !== 0) return endShortString(start, 8 + firstFlagged(flags), word0, word1, word2);
  }
  return readStringBytewise(start);
}

/** Long strings, and short ones too close to the end of the input for word reads. */
function readStringBytewise(start: number): string {
  const source = input;
  const stop = end;
  let cursor = start;
  while (cursor < stop) {
    const code = source[cursor] as number;
    if (code === QUOTE) {
      position = cursor + 1;
      return interned(start, cursor);
    }
    if (code === BACKSLASH || code < 0x20 || code > 0x7f) break;
    cursor++;
  }
  position = cursor;
  ok = false;
  return "";
}

/**
 * Where the words of the string readString returned last are in `shortStringKeys` (its length,
 * then its three words), or -1 when it was long.
 */
export function lastStringKey(): number {
  return lastSlot === -1 ? -1 : lastSlot * 4;
}

/** The short cache's keys (see `lastStringKey`); read only. */
export const shortStringKeys: Int32Array = shortKeys;

/** The note attached for `generation` to the string readString returned last, or -1. */
export function lastStringNote(generation: number): number {
  const slot = lastSlot;
  return slot !== -1 && slotNoteGenerations[slot] === generation ? (slotNotes[slot] as number) : -1;
}

/** Attaches `note` for `generation` to the string readString returned last (short strings only). */
export function noteLastString(generation: number, note: number): void {
  const slot = lastSlot;
  if (slot === -1) return;
  slotNotes[slot] = note;
  slotNoteGenerations[slot] = generation;
}

export function readEnum<T extends string>(variants: readonly T[]): T {
  const index = readEnumIndex(variants);
  return ok ? (variants[index] as T) : ("" as T);
}

/**
 * The index in `variants` of the enum value at the cursor. A short string's index is kept with its
 * cache slot, so a repeated value costs no search (and no string comparison).
 */
export function readEnumIndex(variants: readonly string[]): number {
  const value = readString();
  const slot = lastSlot;
  if (slot !== -1 && shortEnums[slot] === variants) return shortEnumIndexes[slot] as number;
  const index = ok ? variants.indexOf(value) : -1;
  if (index < 0) {
    ok = false;
    return 0;
  }
  if (slot !== -1) {
    shortEnums[slot] = variants;
    shortEnumIndexes[slot] = index;
  }
  return index;
}

/**
 * A u64 written as plain digits without leading zeros, at most 15 of them. A zero takes the same
 * path as any other value: a branch taken only by the `start_ns: 0` of a file's root span would
 * have no type feedback, and V8 would discard the optimized reader at the start of every file.
 */
export function readU64(): number {
  const source = input;
  const stop = end;
  const start = position;
  const first = source[start] as number;
  if (!(first >= DIGIT_0 && first <= DIGIT_9)) {
    if (isSpace(first) && skipSpaces()) return readU64();
    ok = false;
    return 0;
  }
  let cursor = start + 1;
  let value = first - DIGIT_0;
  while (cursor < stop) {
    const code = source[cursor] as number;
    if (code < DIGIT_0 || code > DIGIT_9) break;
    value = value * 10 + (code - DIGIT_0);
    cursor++;
  }
  const digits = cursor - start;
  // Both tests run on most values, so both have type feedback; a leading zero is refused here.
  if (digits > MAX_PLAIN_DIGITS || (digits > 1 && first === DIGIT_0)) ok = false;
  position = cursor;
  return value;
}

const TRUE = ascii("true");
const FALSE = ascii("false");

export function readBoolean(): boolean {
  if (optionalKey(TRUE)) return true;
  if (optionalKey(FALSE)) return false;
  if (skipSpaces()) return readBoolean();
  ok = false;
  return false;
}

/** JSON number grammar (RFC 8259 §6); its value is then what JSON.parse would give. */
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** Bytes that can appear in a JSON number: digits, `-`, `+`, `.`, `e`, `E`. */
function isNumberByte(code: number): boolean {
  return (
    (code >= DIGIT_0 && code <= DIGIT_9) ||
    code === 0x2d ||
    code === 0x2b ||
    code === 0x2e ||
    (code | 0x20) === 0x65
  );
}

/** A finite f64 in any JSON number form (canonical floats include forms like `1.0` and `1e-7`). */
export function readFloat(): number {
  skipSpaces();
  const source = input;
  const start = position;
  let cursor = start;
  while (cursor < end && isNumberByte(source[cursor] as number)) cursor++;
  position = cursor;
  const literal = asciiString(start, cursor);
  const value = JSON_NUMBER.test(literal) ? Number(literal) : Number.NaN;
  if (!Number.isFinite(value)) ok = false;
  return value;
}

// Lists (`[]`, `[e,e,...]`) are read by readers generated per element type beside the event
// readers (canonical-reader-source.ts), each with array literals of its own; these are their steps.

/** Steps over `[`; true when `]` follows at once (also stepped over). */
export function listIsEmpty(): boolean {
  if (input[position] !== OPEN_BRACKET && !(skipSpaces() && input[position] === OPEN_BRACKET)) {
    ok = false;
    return true;
  }
  position++;
  if (input[position] !== CLOSE_BRACKET && !(skipSpaces() && input[position] === CLOSE_BRACKET)) return false;
  position++;
  return true;
}

/** After an element: true for `,` (more follow), false for `]` or a deviation. */
export function listContinues(): boolean {
  const next = input[position++];
  if (next === COMMA) return true;
  if (next === CLOSE_BRACKET) return false;
  position--;
  if (skipSpaces()) return listContinues();
  ok = false;
  return false;
}

/** Starts reading `source[start..stop)`. */
export function begin(source: Uint8Array, start: number, stop: number): void {
  // The view is kept for the next call, which in a reader is usually on the same chunk.
  if (source !== input) {
    input = source;
    view = new DataView(source.buffer, source.byteOffset, source.byteLength);
  }
  position = start;
  end = stop;
  wordEnd = Math.min(stop, source.length);
  ok = true;
}

/** False once the line deviated from the canonical grammar. */
export function isOk(): boolean {
  return ok;
}

/** The byte at the cursor (undefined past the input). */
export function peekByte(): number | undefined {
  return input[position];
}

/**
 * After the last member: `}`, with white space allowed before and after it. Returns the index past
 * the trailing white space, or -1.
 */
export function closeLine(): number {
  if (input[position] !== CLOSE_BRACE && !(skipSpaces() && input[position] === CLOSE_BRACE)) return -1;
  position++;
  while (position < end && isSpace(input[position])) position++;
  return position;
}
