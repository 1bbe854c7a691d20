// The strict line decoder (spec §2–§6, §8.2): one trimmed line of text to an event or an error.
// Tiers, each named after what it accepts, each handing on what it does not:
// - canonical bytes (decode-canonical-bytes.ts): canonical lines, read from their UTF-8 bytes;
// - plain compact text (decode-plain-compact-text.ts): compact lines of plain values, over JSON.parse;
// - compact text (decode-compact-text.ts): compact lines with `null`s and `meta`, same proof;
// - any JSON (decode-any-json.ts): every other line, which gets the result or the error.
// zod stays off this path because readers call it once per line.
import { decodeAnyJson } from "./decode-any-json.js";
import { decodeCanonicalLine } from "./decode-canonical-bytes.js";
import { decodeCompactText } from "./decode-compact-text.js";
import { decodePlainCompactText } from "./decode-plain-compact-text.js";
import { describeValue, type JsonRecord } from "./decode-values.js";
import type { TraceEvent } from "./events.js";
import { type DecodeLineResult, LineFailure } from "./line-decode-error.js";

/** Lines up to this many UTF-16 units are tried as canonical bytes first; writer lines are far shorter. */
const CANONICAL_TEXT_LIMIT = 4096;
/** UTF-8 needs at most three bytes per UTF-16 unit. */
const scratch = new Uint8Array(CANONICAL_TEXT_LIMIT * 3);
const utf8 = new TextEncoder();

/**
 * The canonical-bytes tier for text: the line's UTF-8 bytes through decodeCanonicalLine (ASCII lines only, so any
 * other character, a lone surrogate included, sends the line on to the JSON.parse tiers).
 */
function decodeCanonicalText(line: string): TraceEvent | undefined {
  if (line.length > CANONICAL_TEXT_LIMIT) return undefined;
  const { written } = utf8.encodeInto(line, scratch);
  return decodeCanonicalLine(scratch, 0, written);
}

/** The any-JSON tier for a parsed value, as a result. */
function decodeParsed(line: string, parsed: unknown): DecodeLineResult {
  try {
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new LineFailure(
        "invalid_type",
        `invalid type: ${describeValue(parsed)}, expected an event object`,
      );
    }
    const record = parsed as JsonRecord;
    const kind = typeof record.kind === "string" ? record.kind : "event";
    return { ok: true, event: decodeAnyJson(line, record, kind) };
  } catch (error) {
    if (error instanceof LineFailure) return { ok: false, error: error.toError() };
    throw error;
  }
}

export interface DecodeTraceLineOptions {
  /**
   * The line's bytes already went through a canonical-bytes reader (`readCanonicalLine`, or the
   * column decoder, which has the same grammar) and were refused: skip the canonical tier and go
   * straight to the JSON.parse tiers (the result is the same either way).
   */
  canonicalTried?: boolean;
}

/**
 * Decodes one trimmed, non-blank line (see `trimTraceLine`) into a trace event, applying every
 * rule of spec §2–§6: strict u64 literals with exact bigints above 2^53, case-sensitive enums,
 * null-as-absent only where allowed, defaults, unknown keys ignored (repeated ones too), a
 * repeated known key rejected, every tag value a string, escaped lone surrogates rejected. Never throws for bad input; the result says what and where.
 */
export function decodeTraceLine(trimmedLine: string, options?: DecodeTraceLineOptions): DecodeLineResult {
  if (options?.canonicalTried !== true) {
    const canonical = decodeCanonicalText(trimmedLine);
    if (canonical !== undefined) return { ok: true, event: canonical };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmedLine);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, error: { code: "invalid_json", message: `invalid JSON: ${detail}` } };
  }
  // The common case stays free of exception frames: a proven-compact line of a known kind, first
  // through the plain compact-text tier, then the compact-text tier (nulls, meta lines).
  if (typeof parsed === "object" && parsed !== null) {
    const kind = (parsed as JsonRecord).kind;
    if (typeof kind === "string") {
      const event =
        decodePlainCompactText(trimmedLine, parsed as JsonRecord, kind) ??
        decodeCompactText(trimmedLine, parsed as JsonRecord, kind);
      if (event !== undefined) return { ok: true, event };
    }
  }
  return decodeParsed(trimmedLine, parsed);
}
