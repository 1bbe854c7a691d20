// The parts a side is split into for matching (see `compare-attribution-match.ts`): a span's own
// time, an op signature's time in a span, and what one (span, category, op) held at the peak. Each
// holds the strings it already had (the span's path key, the signature) and makes its per-round
// keys and its label when asked: a side of a large trace has a part per span and per (span, op
// signature), and those strings made up front for both sides were most of a comparison's memory.
import { maskNumbers, type SidePart } from "./compare-attribution-match.js";
import type { MemoryPartSide } from "./compare-attribution-side.js";

export const OWN_TIME = " (own time outside ops)";

export function memoryLabel(span: string | undefined, category: string, op: string): string {
  const what = op === "" ? category : `${category} from ${op}`;
  return span === undefined ? `${what} (across spans)` : `${what} in ${span}`;
}

/** Span paths with their numbers masked, each made once when first asked for. */
export class MaskedPaths {
  readonly #masked = new Map<string, string>();

  of(span: string): string {
    let masked = this.#masked.get(span);
    if (masked === undefined) {
      masked = maskNumbers(span);
      this.#masked.set(span, masked);
    }
    return masked;
  }
}

/** A span's own time outside its ops. Rounds: the path, the masked path; none by signature. */
export class SpanTimePart implements SidePart {
  readonly count = 0;

  constructor(
    private readonly masks: MaskedPaths,
    private readonly span: string,
    readonly value: bigint,
  ) {}

  key(round: number): string | undefined {
    const anchor = this.anchor(round);
    return anchor === undefined ? undefined : `span\u0000${anchor}`;
  }

  anchor(round: number): string | undefined {
    return round === 0 ? this.span : round === 1 ? this.masks.of(this.span) : undefined;
  }

  get label(): string {
    return `${this.span}${OWN_TIME}`;
  }
}

/** One op signature's time in one span. Rounds: the path, the masked path, the signature alone. */
export class OpTimePart implements SidePart {
  constructor(
    private readonly masks: MaskedPaths,
    private readonly span: string,
    private readonly signature: string,
    readonly value: bigint,
    readonly count: number,
  ) {}

  key(round: number): string | undefined {
    return `op\u0000${this.anchor(round) ?? ""}\u0000${this.signature}`;
  }

  anchor(round: number): string | undefined {
    return round === 0 ? this.span : round === 1 ? this.masks.of(this.span) : undefined;
  }

  get label(): string {
    return `${this.signature} in ${this.span}`;
  }
}

/** What one (span, category, op) held at the peak. Rounds: the path, the masked path, none. */
export class MemoryPart implements SidePart {
  constructor(
    private readonly masks: MaskedPaths,
    private readonly part: MemoryPartSide,
  ) {}

  get value(): bigint {
    return this.part.bytes;
  }

  get count(): number {
    return this.part.allocations;
  }

  key(round: number): string | undefined {
    return `${this.anchor(round) ?? ""}\u0000${this.part.category}\u0000${this.part.op}`;
  }

  anchor(round: number): string | undefined {
    return round === 0 ? this.part.span : round === 1 ? this.masks.of(this.part.span) : undefined;
  }

  get label(): string {
    return memoryLabel(this.part.span, this.part.category, this.part.op);
  }
}
