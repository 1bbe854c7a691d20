// The span lines (span_start, span_end) as the layout table lays them out, split into what a span
// writes afresh and what repeats. The keys, their order, types, presence and defaults come from
// @cg/schema's EVENT_LAYOUTS; this says only where the writer takes each key from. A span's line is
// then a run of segments:
//  - text: constant key text, merged with the values that depend only on the span's description
//    (its name, kind, measured flag and step), which are built once per description and cached
//    (span-pieces.ts);
//  - integers written afresh per span: the span's serial number (id `s<N>`), its parent's (an
//    optional key, absent for the root), the clock reading or the duration.
// The byte and string writers (span-line-writers.ts) are generated from these segments.
import type { EventLayout, FieldLayout, WireType } from "@cg/schema/core";
import { defaultText } from "./text-lines.js";

/** A value the session supplies per span: an id written `"s<N>"`, or a u64 written as digits. */
export type SpanNumber = "serial" | "parent" | "time";
/** A value of the span's description, the argument named `property` of `beginSpan` and friends. */
export type DescriptionValue = "name" | "kind" | "measured" | "step";

export type SpanValueSource =
  | { readonly from: "number"; readonly value: SpanNumber }
  | { readonly from: "description"; readonly value: DescriptionValue; readonly property: string };

/** A field whose value comes from the description, as a text segment holds it. */
export interface DescriptionAtom {
  /** `,"key":`, written with the value (an absent optional value leaves both out). */
  readonly key: string;
  readonly field: FieldLayout;
  readonly value: DescriptionValue;
  readonly property: string;
}

export type SpanSegment =
  /** Constant text and description values, in line order. */
  | { readonly kind: "text"; readonly atoms: readonly (string | DescriptionAtom)[] }
  /** `"s<N>` (an id, its closing quote begins the next text) or the digits of a u64. */
  | { readonly kind: "number"; readonly value: SpanNumber; readonly id: boolean }
  /** An optional id, written with its key (and `after`) only when the number is not 0. */
  | { readonly kind: "optional"; readonly value: SpanNumber; readonly key: string; readonly after: string };

export interface SpanLinePlan {
  readonly layout: EventLayout;
  readonly segments: readonly SpanSegment[];
}

const ID: SpanValueSource = { from: "number", value: "serial" };

/** Where the session takes each key of the span lines from; keys not named here have no value. */
export const SPAN_SOURCES: Readonly<
  Record<"span_start" | "span_end", Readonly<Record<string, SpanValueSource>>>
> = {
  span_start: {
    id: ID,
    parent_id: { from: "number", value: "parent" },
    name: { from: "description", value: "name", property: "name" },
    start_ns: { from: "number", value: "time" },
    span_kind: { from: "description", value: "kind", property: "kind" },
    measured: { from: "description", value: "measured", property: "measured" },
    step: { from: "description", value: "step", property: "step" },
  },
  span_end: { id: ID, duration_ns: { from: "number", value: "time" } },
};

const WIRE_TYPES: Readonly<Record<SpanNumber | DescriptionValue, readonly WireType[]>> = {
  serial: ["string"],
  parent: ["string"],
  time: ["u64"],
  name: ["string"],
  kind: ["enum"],
  measured: ["boolean"],
  step: ["enum"],
};

/** The segments of `layout`'s line, its values taken from `sources`. */
export function spanLinePlan(
  layout: EventLayout,
  sources: Readonly<Record<string, SpanValueSource>>,
): SpanLinePlan {
  const segments: SpanSegment[] = [];
  let atoms: (string | DescriptionAtom)[] = [`{"kind":${JSON.stringify(layout.kind)}`];
  const endText = () => {
    if (atoms.length > 0) segments.push({ kind: "text", atoms });
    atoms = [];
  };
  for (const field of layout.fields) {
    const key = `,${JSON.stringify(field.key)}:`;
    const source = sources[field.key];
    if (source === undefined) {
      // A key the session has no value for: its default, or left out.
      if (field.presence === "required") {
        throw new Error(`${layout.kind}: the writer has no value for the required key ${field.key}`);
      }
      if (field.presence === "defaulted") atoms.push(key + defaultText(field));
      continue;
    }
    if (!WIRE_TYPES[source.value].includes(field.type)) {
      throw new Error(
        `${layout.kind}: the writer cannot write its ${source.value} as ${field.type} (${field.key})`,
      );
    }
    if (source.from === "description") {
      atoms.push({ key, field, value: source.value, property: source.property });
      continue;
    }
    const id = source.value !== "time";
    if (source.value === "parent") {
      if (field.presence !== "optional") {
        throw new Error(`${layout.kind}: ${field.key} is absent for the root span, so it must be optional`);
      }
      // The previous id's closing quote moves behind this one: both ids end with it.
      const closing = atoms.at(-1) === '"';
      if (closing) atoms.pop();
      endText();
      segments.push({
        kind: "optional",
        value: source.value,
        key: `${closing ? '"' : ""}${key}"s`,
        after: closing ? "" : '"',
      });
      if (closing) atoms.push('"');
      continue;
    }
    if (field.presence === "optional") {
      throw new Error(
        `${layout.kind}: the writer always has a ${source.value}, so ${field.key} cannot be optional`,
      );
    }
    atoms.push(id ? `${key}"s` : key);
    endText();
    segments.push({ kind: "number", value: source.value, id });
    if (id) atoms.push('"');
  }
  atoms.push("}\n");
  endText();
  return { layout, segments: mergeConstants(segments) };
}

/** Adjacent constant strings of a text segment as one. */
function mergeConstants(segments: readonly SpanSegment[]): SpanSegment[] {
  return segments.map((segment) => {
    if (segment.kind !== "text") return segment;
    const atoms: (string | DescriptionAtom)[] = [];
    for (const atom of segment.atoms) {
      const last = atoms.at(-1);
      if (typeof atom === "string" && typeof last === "string") atoms[atoms.length - 1] = last + atom;
      else atoms.push(atom);
    }
    return { kind: "text", atoms };
  });
}

/** Whether a text segment holds description values (else it is one constant string). */
export function describes(segment: SpanSegment): boolean {
  return segment.kind === "text" && segment.atoms.some((atom) => typeof atom !== "string");
}
