// The span_start and span_end writers, generated at module load from the layout table through the
// span line plans (span-line-plan.ts): a straight-line byte writer and a string writer per line,
// the way byte-lines.ts and text-lines.ts build the record lines. Where code generation is
// forbidden the byte writer declines every line and the string writer runs as closures over the
// same plan. Values are checked before they get here: the description by its cache
// (span-pieces.ts), serial numbers are the session's own.

import { generatedFunction, type SourceCompiler, sourceString } from "@cg/schema/codegen";
import { EVENT_LAYOUTS, type EventLayout } from "@cg/schema/core";
import { isDigits, putDigits } from "./byte-values.js";
import { integerDigits } from "./integer-digits.js";
import { FIXED_RESERVE, fragmentSource, type LineTarget, putFragment } from "./line-target.js";
import {
  describes,
  SPAN_SOURCES,
  type SpanLinePlan,
  type SpanSegment,
  type SpanValueSource,
  spanLinePlan,
} from "./span-line-plan.js";
import type { SpanPieces } from "./span-pieces.js";

/**
 * Writes a span line at `pos`: ids `s<serial>` and `s<parent>` (no parent key for parent 0), `time`
 * the start reading or the duration, `pieces` the description's cached text. The end offset, or -1
 * to fall back to the string writer.
 */
export type SpanByteLine = (
  target: LineTarget,
  pos: number,
  serial: number,
  parent: number,
  time: number,
  pieces: SpanPieces,
) => number;

/** The same line as text, LF-terminated. */
export type SpanTextLine = (serial: number, parent: number, time: number, pieces: SpanPieces) => string;

export interface SpanLineWriters {
  readonly plan: SpanLinePlan;
  readonly bytes: SpanByteLine;
  readonly text: SpanTextLine;
}

/** Widest integer: 20 digits, plus one byte of slack. */
const INTEGER_BYTES = 21;

function byteSource(plan: SpanLinePlan): string {
  let unchecked = 0;
  let group = 0;
  const constant = (text: string) => {
    unchecked += text.length;
    return fragmentSource(text);
  };
  const digits = (value: string) => {
    unchecked += INTEGER_BYTES;
    return `at = putDigits(bytes, at, ${value});\n`;
  };
  const write = (segment: SpanSegment): string => {
    switch (segment.kind) {
      case "number":
        return digits(segment.value);
      case "optional":
        return `if (${segment.value} !== 0) {\n${constant(segment.key)}${digits(segment.value)}${segment.after === "" ? "" : constant(segment.after)}}\n`;
      case "text":
        if (!describes(segment)) return constant(segment.atoms.join(""));
        // Description text is checked against the room left, as every variable-length value is.
        return `{\nconst fragment = fragments[${group++}];\nif (at + fragment.length > limit) return -1;\nat = putFragment(target, at, fragment);\n}\n`;
    }
  };
  const body = plan.segments.map(write).join("");
  if (unchecked > FIXED_RESERVE)
    throw new Error(`${plan.layout.kind}: the line's constant part outgrows FIXED_RESERVE`);
  const usesTime = plan.segments.some((segment) => segment.kind !== "text" && segment.value === "time");
  const checks = [
    "pos > limit",
    group > 0 ? "fragments === undefined" : "",
    usesTime ? "!isDigits(time)" : "",
  ];
  return `const bytes = target.bytes;\nconst view = target.view;\nconst limit = bytes.length - FIXED_RESERVE;\n${group > 0 ? "const fragments = pieces.fragments;\n" : ""}if (${checks.filter((check) => check !== "").join(" || ")}) return -1;\nlet at = pos;\n${body}return at;\n`;
}

function textSource(plan: SpanLinePlan): string {
  let group = 0;
  const part = (segment: SpanSegment): string => {
    switch (segment.kind) {
      case "number":
        return `integerDigits(${segment.value})`;
      case "optional":
        return `(${segment.value} === 0 ? "" : ${sourceString(segment.key)} + integerDigits(${segment.value})${segment.after === "" ? "" : ` + ${sourceString(segment.after)}`})`;
      case "text":
        return describes(segment) ? `pieces.texts[${group++}]` : sourceString(segment.atoms.join(""));
    }
  };
  return `return ${plan.segments.map(part).join(" + ")};\n`;
}

/** The string writer as closures over the plan, for where code generation is forbidden. */
function textClosures(plan: SpanLinePlan): SpanTextLine {
  return (serial, parent, time, pieces) => {
    const numbers = { serial, parent, time };
    let line = "";
    let group = 0;
    for (const segment of plan.segments) {
      if (segment.kind === "number") line += integerDigits(numbers[segment.value]);
      else if (segment.kind === "optional") {
        const value = numbers[segment.value];
        if (value !== 0) line += segment.key + integerDigits(value) + segment.after;
      } else line += describes(segment) ? pieces.texts[group++] : segment.atoms.join("");
    }
    return line;
  };
}

const declineEvery: SpanByteLine = () => -1;

/** The writers of a span line laid out by `layout`, its values taken from `sources`. */
export function spanLineWriters(
  layout: EventLayout,
  sources: Readonly<Record<string, SpanValueSource>>,
  compile?: SourceCompiler,
): SpanLineWriters {
  const plan = spanLinePlan(layout, sources);
  const bytes = generatedFunction<SpanByteLine>(
    { FIXED_RESERVE, isDigits, putDigits, putFragment },
    `return function (target, pos, serial, parent, time, pieces) {\n${byteSource(plan)}};\n`,
    compile,
  );
  const text = generatedFunction<SpanTextLine>(
    { integerDigits },
    `return function (serial, parent, time, pieces) {\n${textSource(plan)}};\n`,
    compile,
  );
  return { plan, bytes: bytes ?? declineEvery, text: text ?? textClosures(plan) };
}

/** What the span_end writers take for `pieces`: that line has no description values. */
export const NO_PIECES: SpanPieces = { texts: [], fragments: [] };

/** The session's span lines, from the real table. */
export const SPAN_START = spanLineWriters(EVENT_LAYOUTS.span_start, SPAN_SOURCES.span_start);
export const SPAN_END = spanLineWriters(EVENT_LAYOUTS.span_end, SPAN_SOURCES.span_end);
