// The parts of a `span_start` line that repeat from span to span, prepared once: the name (with
// the keys around it) and the ending (`span_kind`, `measured`, `step`, `}` and LF). A span then
// costs two word-wise copies for them instead of a scan and several small copies.
import { EXECUTION_STEPS, type ExecutionStep, SPAN_KINDS, type SpanKind } from "@cg/schema";
import { enumText, jsonString } from "./json-parts.js";
import { Fragment } from "./line-target.js";

/** A span name's JSON text, and `","name":<json>,"start_ns":` when that is ASCII. */
export interface SpanNamePieces {
  readonly json: string;
  readonly fragment: Fragment | undefined;
}

const NAME_CACHE_LIMIT = 4096;

function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) return false;
  return true;
}

/** Span names repeat (layers, steps): their pieces are built once and reused (bounded). */
export class SpanNameCache {
  readonly #pieces = new Map<string, SpanNamePieces>();

  /** The pieces of `name`; throws WriterInputError (`name`) for a non-string. */
  get(name: string): SpanNamePieces {
    let pieces = typeof name === "string" ? this.#pieces.get(name) : undefined;
    if (pieces === undefined) {
      const json = jsonString(name, "name");
      pieces = { json, fragment: isAscii(json) ? new Fragment(`","name":${json},"start_ns":`) : undefined };
      if (this.#pieces.size >= NAME_CACHE_LIMIT) this.#pieces.clear();
      this.#pieces.set(name, pieces);
    }
    return pieces;
  }
}

/** The text after `start_ns` digits: `,"span_kind":…,"measured":…[,"step":…]}` + LF. */
export function spanStartTail(kindJson: string, measured: boolean, stepJson: string | undefined): string {
  return (
    ',"span_kind":' +
    kindJson +
    (measured ? ',"measured":true' : ',"measured":false') +
    (stepJson === undefined ? "}\n" : ',"step":' + stepJson + "}\n")
  );
}

const STEP_SLOTS = EXECUTION_STEPS.length + 1;
const tails: (Fragment | undefined)[] = [];

/**
 * The ending fragment for a span kind, measured flag and step, checked (WriterInputError naming
 * `kind` or `step` for a value outside the spec's enums) and built on first use.
 */
export function spanStartTailFragment(
  kind: SpanKind,
  measured: boolean,
  step: ExecutionStep | undefined,
): Fragment {
  const kindIndex = SPAN_KINDS.indexOf(kind);
  const stepIndex = step === undefined ? -1 : EXECUTION_STEPS.indexOf(step);
  const known = kindIndex >= 0 && (step === undefined || stepIndex >= 0);
  const slot = ((kindIndex * 2 + (measured ? 1 : 0)) * STEP_SLOTS + stepIndex + 1) | 0;
  const cached = known ? tails[slot] : undefined;
  if (cached !== undefined) return cached;
  const kindJson = enumText(kind, SPAN_KINDS, "kind");
  const stepJson = step === undefined ? undefined : enumText(step, EXECUTION_STEPS, "step");
  const fragment = new Fragment(spanStartTail(kindJson, measured, stepJson));
  tails[slot] = fragment;
  return fragment;
}
