// One structural pass over a line that JSON.parse already accepted. It recovers the facts that the
// parsed value no longer shows (spec §4.6, §5, §6.1): escaped lone surrogates, the literal form of
// numbers (`5000.0`, `-0`, `5e3`), the exact digits of integers beyond 2^53, overflowing floats,
// and how many keys the top-level object really had (duplicates collapse in JSON.parse). String
// bodies are skipped with indexOf, so the cost is proportional to the structure, not the text.
import { LineFailure } from "./line-decode-error.js";

/** An unusual number token: float-form (`.`, exponent or leading `-`) or 16+ digits. */
export interface NumberFact {
  /** Top-level key the number belongs to. */
  key: string;
  /** -1 for the key's own value, otherwise the element index inside a top-level array value. */
  index: number;
  floatForm: boolean;
  text: string;
}

/**
 * The first value of a string map (such as `tags`) that is not a string, in text order. JSON.parse
 * keeps only the last value of a repeated key, so `{"a":1,"a":"1"}` hides the bad first value from
 * the validators; the scan sees every one.
 */
export interface MapValueFailure {
  /** Top-level key of the map. */
  key: string;
  /** The map entry's key. */
  entry: string;
  /** serde-style description of the value, e.g. "integer `128`", "null", "sequence". */
  description: string;
}

export interface LineScan {
  /** Number of keys in the top-level object, duplicates included. */
  keyCount: number;
  /** Unusual number tokens, or null when there were none (the common case). */
  facts: NumberFact[] | null;
  /** Top-level key names in order, only when requested (used to name a duplicate). */
  keys: string[] | null;
  /** The first non-string value inside a map-typed key (`mapKeys`), or null. */
  mapFailure: MapValueFailure | null;
}

/** The reference decoder (serde_json) stops at 128 levels of nesting. */
const MAX_DEPTH = 128;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function hexValue(line: string, at: number): number {
  const text = line.slice(at, at + 4);
  return /^[0-9a-fA-F]{4}$/.test(text) ? Number.parseInt(text, 16) : -1;
}

/** Walks a string containing escapes from `start` (after the opening quote) to its closing quote. */
function scanEscapedString(line: string, start: number): number {
  let position = start;
  const length = line.length;
  while (position < length) {
    const code = line.charCodeAt(position);
    if (code === QUOTE) return position;
    if (code !== BACKSLASH) {
      position++;
      continue;
    }
    if (line.charCodeAt(position + 1) !== 0x75 /* u */) {
      position += 2;
      continue;
    }
    const unit = hexValue(line, position + 2);
    if (unit >= 0xdc00 && unit <= 0xdfff) {
      throw new LineFailure(
        "invalid_json",
        `invalid JSON: lone trailing surrogate in hex escape at column ${position + 1}`,
      );
    }
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next =
        line.charCodeAt(position + 6) === BACKSLASH && line.charCodeAt(position + 7) === 0x75
          ? hexValue(line, position + 8)
          : -1;
      if (next < 0xdc00 || next > 0xdfff) {
        throw new LineFailure(
          "invalid_json",
          `invalid JSON: lone leading surrogate in hex escape at column ${position + 1}`,
        );
      }
      position += 12;
      continue;
    }
    position += 6;
  }
  return position;
}

function keyName(line: string, start: number, end: number, escaped: boolean): string {
  return escaped ? (JSON.parse(line.slice(start, end + 1)) as string) : line.slice(start + 1, end);
}

/** Describes the literal starting at `line[position]` inside a map, which is not a string. */
function describeMapValue(line: string, position: number): string {
  const code = line.charCodeAt(position);
  if (code === 0x7b) return "map";
  if (code === 0x5b) return "sequence";
  if (code === 0x6e) return "null";
  if (code === 0x74) return "boolean `true`";
  if (code === 0x66) return "boolean `false`";
  const match = /^-?[0-9][0-9.eE+-]*/.exec(line.slice(position)) as RegExpExecArray;
  const text = match[0];
  const integral = /^-?[0-9]+$/.test(text) && text !== "-0";
  return integral ? `integer \`${text}\`` : `floating point \`${Number(text)}\``;
}

// Where the scan is inside a map-typed value (depth 2 under one of `mapKeys`).
const OUTSIDE_MAP = 0;
const MAP_KEY = 1;
const MAP_VALUE = 2;
const MAP_VALUE_SEEN = 3;

/**
 * Scans a line whose top-level value is a JSON object that JSON.parse accepted. `fieldPrefix` (the
 * event kind) names fields in errors; `mapKeys` are the top-level keys whose values are string maps.
 */
export function scanLine(
  line: string,
  collectKeys: boolean,
  fieldPrefix: string,
  mapKeys: ReadonlySet<string> | undefined = undefined,
): LineScan {
  const length = line.length;
  let depth = 0;
  let keyCount = 0;
  let facts: NumberFact[] | null = null;
  const keys: string[] | null = collectKeys ? [] : null;
  let keyStart = -1;
  let keyEnd = -1;
  let keyEscaped = false;
  let expectKey = false;
  let arrayAtDepthTwo = false;
  let elementIndex = 0;
  let backslash = line.indexOf("\\");
  let mapState = OUTSIDE_MAP;
  let entryStart = -1;
  let entryEnd = -1;
  let entryEscaped = false;
  let mapFailure: MapValueFailure | null = null;
  /** Records the first non-string map value, at `position`. */
  const failMapValue = (): void => {
    mapState = MAP_VALUE_SEEN;
    if (mapFailure !== null) return;
    mapFailure = {
      key: keyName(line, keyStart, keyEnd, keyEscaped),
      entry: keyName(line, entryStart, entryEnd, entryEscaped),
      description: describeMapValue(line, position),
    };
  };
  let position = 0;
  while (position < length) {
    const code = line.charCodeAt(position);
    if (code === QUOTE) {
      // Backslashes only occur inside strings, so the next one is in this string or a later one.
      let end = line.indexOf('"', position + 1);
      let escaped = false;
      if (backslash !== -1 && backslash < end) {
        end = scanEscapedString(line, position + 1);
        escaped = true;
        backslash = line.indexOf("\\", end + 1);
      }
      if (depth === 1 && expectKey) {
        keyCount++;
        keyStart = position;
        keyEnd = end;
        keyEscaped = escaped;
        expectKey = false;
        if (keys !== null) keys.push(keyName(line, keyStart, keyEnd, keyEscaped));
      } else if (depth === 2 && mapState === MAP_KEY) {
        entryStart = position;
        entryEnd = end;
        entryEscaped = escaped;
        mapState = MAP_VALUE;
      } else if (depth === 2 && mapState === MAP_VALUE) {
        mapState = MAP_VALUE_SEEN;
      }
      position = end + 1;
      continue;
    }
    switch (code) {
      case 0x7b: // {
        if (depth === 2 && mapState === MAP_VALUE) failMapValue();
        depth++;
        if (depth === 1) expectKey = true;
        else if (depth === 2) {
          arrayAtDepthTwo = false;
          if (mapKeys?.has(keyName(line, keyStart, keyEnd, keyEscaped))) mapState = MAP_KEY;
        } else if (depth >= MAX_DEPTH)
          throw new LineFailure("invalid_json", "invalid JSON: recursion limit exceeded");
        break;
      case 0x5b: // [
        if (depth === 2 && mapState === MAP_VALUE) failMapValue();
        depth++;
        if (depth === 2) {
          arrayAtDepthTwo = true;
          elementIndex = 0;
        } else if (depth >= MAX_DEPTH)
          throw new LineFailure("invalid_json", "invalid JSON: recursion limit exceeded");
        break;
      case 0x7d: // }
      case 0x5d: // ]
        depth--;
        if (depth === 1) mapState = OUTSIDE_MAP;
        break;
      case 0x2c: // ,
        if (depth === 1) expectKey = true;
        else if (depth === 2) {
          elementIndex++;
          if (mapState !== OUTSIDE_MAP) mapState = MAP_KEY;
        }
        break;
      case 0x6e: // n(ull)
      case 0x74: // t(rue)
      case 0x66: // f(alse)
        if (depth === 2 && mapState === MAP_VALUE) failMapValue();
        break;
      default:
        if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
          let end = position + 1;
          let floatForm = code === 0x2d;
          while (end < length) {
            const digit = line.charCodeAt(end);
            if (digit >= 0x30 && digit <= 0x39) end++;
            else if (digit === 0x2e || digit === 0x65 || digit === 0x45 || digit === 0x2b || digit === 0x2d) {
              floatForm = true;
              end++;
            } else break;
          }
          if (depth === 2 && mapState === MAP_VALUE) failMapValue();
          if (floatForm || end - position >= 16) {
            const text = line.slice(position, end);
            const key = keyName(line, keyStart, keyEnd, keyEscaped);
            // JSON.parse turns a float beyond the f64 range into Infinity; the reference rejects it.
            if (!Number.isFinite(Number(text))) {
              throw new LineFailure(
                "number_out_of_range",
                `number out of range: \`${text}\``,
                `${fieldPrefix}.${key}`,
              );
            }
            if (depth === 1 || (depth === 2 && arrayAtDepthTwo)) {
              if (facts === null) facts = [];
              facts.push({ key, index: depth === 1 ? -1 : elementIndex, floatForm, text });
            }
          }
          position = end;
          continue;
        }
    }
    position++;
  }
  return { keyCount, facts, keys, mapFailure };
}

/** The fact recorded for a top-level key (index -1) or one element of its array value. */
export function findFact(facts: NumberFact[] | null, key: string, index: number): NumberFact | undefined {
  if (facts === null) return undefined;
  for (const fact of facts) if (fact.key === key && fact.index === index) return fact;
  return undefined;
}
