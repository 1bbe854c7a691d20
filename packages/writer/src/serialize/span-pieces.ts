// The parts of a span line that depend only on the span's description (name, kind, measured flag,
// step), built once per description and reused: each text segment of the line plan that holds a
// description value, with the constant keys around it, as text and as a word-wise byte fragment. A
// span then costs one map lookup and a few copies for them instead of escaping and several small
// copies.
import { EXECUTION_STEPS, type ExecutionStep, SPAN_KINDS, type SpanKind } from "@cg/schema/core";
import { Fragment } from "./line-target.js";
import { type DescriptionAtom, describes, type SpanLinePlan } from "./span-line-plan.js";
import { defaultText, encoderOf } from "./text-lines.js";

/** A description's text segments, in line order; `fragments` is undefined unless all are ASCII. */
export interface SpanPieces {
  readonly texts: readonly string[];
  readonly fragments: readonly Fragment[] | undefined;
}

export interface SpanDescription {
  readonly name: unknown;
  readonly kind: unknown;
  readonly measured: unknown;
  readonly step?: unknown;
}

const NAME_CACHE_LIMIT = 4096;
const STEP_SLOTS = EXECUTION_STEPS.length + 1;

function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) return false;
  return true;
}

/** `,"key":value` of one description value, checked (WriterInputError naming the argument). */
function atomText(atom: DescriptionAtom, description: SpanDescription): string {
  const value = description[atom.value];
  const { field } = atom;
  if (value === undefined) {
    if (field.presence === "optional") return "";
    if (field.presence === "defaulted") return atom.key + defaultText(field);
  }
  return atom.key + encoderOf(field)(value, atom.property);
}

/** Builds the pieces of a description; throws WriterInputError for an invalid value. */
export function spanPieces(plan: SpanLinePlan, description: SpanDescription): SpanPieces {
  const texts: string[] = [];
  for (const segment of plan.segments) {
    if (segment.kind !== "text" || !describes(segment)) continue;
    let text = "";
    for (const atom of segment.atoms) text += typeof atom === "string" ? atom : atomText(atom, description);
    texts.push(text);
  }
  return { texts, fragments: texts.every(isAscii) ? texts.map((text) => new Fragment(text)) : undefined };
}

/** The pieces of the descriptions a session has used (bounded: names repeat, layers and steps). */
export class SpanPiecesCache {
  readonly #plan: SpanLinePlan;
  readonly #names = new Map<string, (SpanPieces | undefined)[]>();

  constructor(plan: SpanLinePlan) {
    this.#plan = plan;
  }

  /** The pieces of a span's description; throws WriterInputError (naming the argument) for a bad one. */
  get(name: string, kind: SpanKind, measured: boolean, step: ExecutionStep | undefined): SpanPieces {
    const kindIndex = SPAN_KINDS.indexOf(kind);
    const stepIndex = step === undefined ? -1 : EXECUTION_STEPS.indexOf(step);
    const slot = ((kindIndex * 2 + (measured ? 1 : 0)) * STEP_SLOTS + stepIndex + 1) | 0;
    const slots = typeof name === "string" ? this.#names.get(name) : undefined;
    const known = kindIndex >= 0 && (step === undefined || stepIndex >= 0) && typeof measured === "boolean";
    const cached = slots !== undefined && known ? slots[slot] : undefined;
    return cached ?? this.#add(name, kind, measured, step, known ? slot : -1);
  }

  #add(name: string, kind: SpanKind, measured: boolean, step: ExecutionStep | undefined, slot: number) {
    const pieces = spanPieces(this.#plan, { name, kind, measured, step });
    if (slot >= 0) {
      let slots = this.#names.get(name);
      if (slots === undefined) {
        if (this.#names.size >= NAME_CACHE_LIMIT) this.#names.clear();
        slots = [];
        this.#names.set(name, slots);
      }
      slots[slot] = pieces;
    }
    return pieces;
  }
}
