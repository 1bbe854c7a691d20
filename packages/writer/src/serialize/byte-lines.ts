// The byte serializers of the record lines, generated from the layout table and the line plans
// (line-plans.ts) at module load: one straight-line function per line, as fast as the hand-written
// ones it replaces (code generation: @cg/schema's generatedFunction). Each writes the line the
// string serializer (text-lines.ts) would, into the sink's buffer, or returns -1 for anything
// uncommon, invalid or too long — and, where code generation is forbidden, for every line: the
// session then takes the string path. See line-target.ts for the space rules.
//
// The clock is read only when the line takes its time, after every other key was checked: in place
// when only integers follow it (checked before the reading), else into a gap that is closed once the
// rest of the line is written (timestamp-gap.ts).
import { storageBytes } from "@cg/memory";
import { generatedFunction, type SourceCompiler, SourceConstants, sourceString } from "@cg/schema/codegen";
import type { FieldLayout } from "@cg/schema/core";
import {
  isDigits,
  isU64,
  putAscii,
  putDigits,
  putJsonString,
  putShape,
  putStringArray,
  putU64,
} from "./byte-values.js";
import { LINE_PLANS, type LinePlan, type ValueSource } from "./line-plans.js";
import { FIXED_RESERVE, Fragment, fragmentSource, type LineTarget, putFragment } from "./line-target.js";
import { defaultText } from "./text-lines.js";
import { fillTimestampGap, TIMESTAMP_GAP } from "./timestamp-gap.js";

/**
 * Writes one line at `pos`; the end offset, or -1. `record` holds the record's values (for
 * `device_memory`, the session's arguments by name), `spanId` the span's id, `action` the memory
 * action; `zeroTimestampMeansNow` makes a timestamp of 0 take the clock's time too.
 */
export type ByteLine = (
  target: LineTarget,
  pos: number,
  spanId: string,
  record: unknown,
  action: string | undefined,
  zeroTimestampMeansNow: boolean,
  now: () => number,
) => number;

/** Widest integer: 20 digits, plus its key's share of the reserve. */
const INTEGER_BYTES = 21;

class ByteLineSource {
  readonly constants = new SourceConstants();
  /** Bytes written unchecked: constant fragments and integers (must fit FIXED_RESERVE). */
  unchecked = 0;

  /** Code that writes the constant `text` at `at` (see fragmentSource). */
  fragment(text: string): string {
    this.unchecked += text.length;
    return fragmentSource(text);
  }

  /** `"variant"` for each enum variant (as fragments), and the default's for an absent value. */
  enumFragments(field: FieldLayout): string {
    const fragments = new Map<unknown, Fragment>(
      (field.variants ?? []).map((variant) => [variant, new Fragment(JSON.stringify(variant))]),
    );
    if (field.presence === "defaulted") fragments.set(undefined, new Fragment(defaultText(field)));
    let longest = 0;
    for (const fragment of fragments.values()) longest = Math.max(longest, fragment.length);
    this.unchecked += longest;
    return this.constants.ref(fragments);
  }
}

const FAIL = "if (at < 0) return -1;\n";

/** Writes the value `value` of `field` at `at` (key already written). */
function valueSource(source: ByteLineSource, field: FieldLayout, value: string): string {
  const absentDefault =
    field.presence === "defaulted" &&
    field.type !== "strings" &&
    field.type !== "shape" &&
    field.type !== "enum"
      ? `if (${value} === undefined) at = putAscii(bytes, at, ${sourceString(defaultText(field))});\nelse `
      : "";
  const required = field.presence === "required" ? `if (${value} === undefined) return -1;\n` : "";
  switch (field.type) {
    case "string":
      return `${absentDefault}{\nat = putJsonString(bytes, at, limit, ${value});\n${FAIL}}\n`;
    case "u64":
      source.unchecked += INTEGER_BYTES;
      return `${absentDefault}{\nat = putU64(bytes, at, ${value});\n${FAIL}}\n`;
    case "boolean":
      source.unchecked += 5;
      return `${absentDefault}if (${value} === true) {\n${fragmentSource("true")}} else if (${value} === false) {\n${fragmentSource("false")}} else return -1;\n`;
    case "enum":
      return `{\nconst fragment = ${source.enumFragments(field)}.get(${value});\nif (fragment === undefined) return -1;\nat = putFragment(target, at, fragment);\n}\n`;
    case "strings":
      return `${required}at = putStringArray(bytes, at, limit, ${value});\n${FAIL}`;
    case "shape":
      return `${required}at = putShape(bytes, at, limit, ${value});\n${FAIL}`;
    default:
      throw new Error(`the writer has no serializer for ${field.type} (${field.key})`);
  }
}

/** The expression of each key's value (held in a local `v<i>`). */
function sourceExpression(source: ValueSource): string {
  switch (source.from) {
    case "span":
      return "spanId";
    case "action":
      return "action";
    case "storage":
      return "record.storageBytes";
    default:
      return `record.${source.property}`;
  }
}

/** The check of a value that can be made before the clock is read, without writing it (integers). */
function checkable(field: FieldLayout, source: ValueSource): ((value: string) => string) | undefined {
  const absentOrU64 = (value: string) => `(${value} === undefined || isU64(${value}))`;
  if (source.from === "storage") return absentOrU64;
  if (source.from === "record" && field.type === "u64") {
    return field.presence === "required" ? (value) => `isU64(${value})` : absentOrU64;
  }
  return undefined;
}

function byteLineSource(source: ByteLineSource, plan: LinePlan): string {
  const { layout, sources } = plan;
  const fields = layout.fields;
  const clockIndex = sources.findIndex((item) => item.from === "clock");
  const after = fields
    .slice(clockIndex + 1)
    .map((field, offset) => checkable(field, sources[clockIndex + 1 + offset] as ValueSource));
  const inPlace = clockIndex >= 0 && after.every((check) => check !== undefined);
  const locals = sources.map((item, index) => `const v${index} = ${sourceExpression(item)};\n`).join("");
  const timestamp = `(v${clockIndex} === 0 && zeroTimestampMeansNow ? undefined : v${clockIndex})`;
  let body = `const bytes = target.bytes;\nconst view = target.view;\nconst limit = bytes.length - FIXED_RESERVE;\nif (pos > limit || typeof record !== "object" || record === null) return -1;\n${locals}`;
  // `{"kind":"<kind>"` and the first key go as one fragment when the first key is always written.
  const first = fields[0];
  const firstInHead =
    first !== undefined && !(first.presence === "optional" && sources[0]?.from === "record");
  const head = `{"kind":${JSON.stringify(layout.kind)}${firstInHead ? `,${JSON.stringify(first.key)}:` : ""}`;
  body += `let at = pos;\n${source.fragment(head)}`;
  fields.forEach((field, index) => {
    const itemSource = sources[index] as ValueSource;
    const putKey = index === 0 && firstInHead ? "" : source.fragment(`,${JSON.stringify(field.key)}:`);
    const value = `v${index}`;
    let write: string;
    if (itemSource.from === "clock") {
      source.unchecked += INTEGER_BYTES;
      if (inPlace) {
        const checks = after.map((check, offset) => check?.(`v${clockIndex + 1 + offset}`));
        write = `if (!(${checks.join(" && ") || "true"})) return -1;\n{\nconst time = ${timestamp};\nif (time === undefined) {\nconst reading = now();\nif (!isDigits(reading)) return -1;\nat = putDigits(bytes, at, reading);\n} else {\nat = putU64(bytes, at, time);\n${FAIL}}\n}\n`;
      } else {
        write = "const gapAt = at;\nat += TIMESTAMP_GAP;\n";
      }
    } else if (itemSource.from === "storage") {
      const shape = fields.findIndex((item) => item.key === "shape");
      const dtype = fields.findIndex((item) => item.key === "dtype");
      if (shape < 0 || dtype < 0 || shape > index || dtype > index) {
        throw new Error(`${layout.kind}: a derived storage size needs shape and dtype before it`);
      }
      source.unchecked += INTEGER_BYTES;
      // shape and dtype are valid by now, so the derivation cannot throw.
      write = `at = putU64(bytes, at, ${value} === undefined ? storageBytes(v${shape} ?? [], v${dtype}) : ${value});\n${FAIL}`;
    } else {
      write = valueSource(source, field, value);
    }
    body +=
      field.presence === "optional" && itemSource.from === "record"
        ? `if (${value} !== undefined) {\n${putKey}${write}}\n`
        : `${putKey}${write}`;
  });
  source.unchecked += 2;
  body += "bytes[at] = 0x7d;\nbytes[at + 1] = 0x0a;\n";
  body +=
    clockIndex >= 0 && !inPlace
      ? `return fillTimestampGap(bytes, gapAt, at + 2, ${timestamp}, now);\n`
      : "return at + 2;\n";
  return body;
}

const declineEvery: ByteLine = () => -1;

/** The byte serializer of `plan`; one that declines every line where code generation is forbidden. */
export function byteLine(plan: LinePlan, compile?: SourceCompiler): ByteLine {
  const source = new ByteLineSource();
  const body = byteLineSource(source, plan);
  if (source.unchecked > FIXED_RESERVE)
    throw new Error(`${plan.layout.kind}: the line's constant part outgrows FIXED_RESERVE`);
  const bindings = {
    C: source.constants.values,
    FIXED_RESERVE,
    TIMESTAMP_GAP,
    fillTimestampGap,
    isDigits,
    isU64,
    putAscii,
    putDigits,
    putFragment,
    putJsonString,
    putShape,
    putStringArray,
    putU64,
    storageBytes,
  };
  const generated = `return function (target, pos, spanId, record, action, zeroTimestampMeansNow, now) {\n${body}};\n`;
  return generatedFunction<ByteLine>(bindings, generated, compile) ?? declineEvery;
}

export const BYTE_LINES = {
  op: byteLine(LINE_PLANS.op),
  tensor: byteLine(LINE_PLANS.tensor),
  memory: byteLine(LINE_PLANS.memory),
  device_memory: byteLine(LINE_PLANS.device_memory),
};
