// The parts a side is split into for matching (see `compare-attribution-match.ts`): a span's own
// time, an op signature's time in a span, and what one (span, category, op) held at the peak. Each
// holds the strings it already had (the span's path key, the signature) and their ids in a
// `KeySpace` shared by both sides; its per-round keys are numbers made from those ids, and its
// label and key text are made when asked: a side of a large trace has a part per span and per
// (span, op signature), and strings made up front for both sides were most of a comparison's memory.
import { maskNumbers, type SidePart } from "./compare-attribution-match.js";
import type { MemoryPartSide } from "./compare-attribution-side.js";
import { ComparisonInputError } from "./compare-error.js";

export const OWN_TIME = " (own time outside ops)";

export function memoryLabel(span: string | undefined, category: string, op: string): string {
  const what = op === "" ? category : `${category} from ${op}`;
  return span === undefined ? `${what} (across spans)` : `${what} in ${span}`;
}

/** The kinds of part a key tells apart (a span's own time and an op's time share a matching). */
const KINDS = 3;

/**
 * Strings as small integers, shared by both sides so that equal strings get equal ids, and the
 * numeric keys made of them. Every name is added before the first key is made (the keys' width is
 * the number of names).
 */
export class KeySpace {
  readonly #ids = new Map<string, number>();
  readonly #masked: number[] = [];
  #width = 0;

  /** The id of `name`. */
  id(name: string): number {
    let id = this.#ids.get(name);
    if (id === undefined) {
      if (this.#width !== 0) throw new Error("KeySpace: a name was added after the first key");
      id = this.#ids.size;
      this.#ids.set(name, id);
    }
    return id;
  }

  /** The id of a span path with its numbers masked, from the path's id (masked once per path). */
  masked(spanId: number, span: string): number {
    let id = this.#masked[spanId];
    if (id === undefined) {
      id = this.id(maskNumbers(span));
      this.#masked[spanId] = id;
    }
    return id;
  }

  /** The key of a part of `kind` at `anchor` (a name id, or -1 for none) with `detail` (the same). */
  key(kind: number, anchor: number, detail: number): number {
    if (this.#width === 0) {
      this.#width = this.#ids.size + 1;
      if (this.#width * this.#width * KINDS > Number.MAX_SAFE_INTEGER) {
        throw new ComparisonInputError({
          code: "attribution_size",
          message: `attribution: ${this.#ids.size} distinct span paths and signatures are more than a comparison can key`,
        });
      }
    }
    return ((anchor + 1) * this.#width + (detail + 1)) * KINDS + kind;
  }
}

/** A span path, its id and its masked id: the anchors of the path and masked-path rounds. */
export class SpanName {
  readonly id: number;
  readonly maskedId: number;

  constructor(
    space: KeySpace,
    readonly path: string,
  ) {
    this.id = space.id(path);
    this.maskedId = space.masked(this.id, path);
  }

  anchor(round: number): number | undefined {
    return round === 0 ? this.id : round === 1 ? this.maskedId : undefined;
  }

  /** The anchor's text (the path, or the path with its numbers masked). */
  anchorText(round: number): string | undefined {
    return round === 0 ? this.path : round === 1 ? maskNumbers(this.path) : undefined;
  }
}

/** Span names by path, one per distinct path of both sides. */
export class SpanNames {
  readonly #byPath = new Map<string, SpanName>();

  constructor(readonly space: KeySpace) {}

  of(path: string): SpanName {
    let name = this.#byPath.get(path);
    if (name === undefined) {
      name = new SpanName(this.space, path);
      this.#byPath.set(path, name);
    }
    return name;
  }

  /** A trace's spans as each round's anchors: the path ids, and the masked ids. */
  anchorSets(paths: Iterable<string>): Set<number>[] {
    const exact = new Set<number>();
    const masked = new Set<number>();
    for (const path of paths) {
      const name = this.of(path);
      exact.add(name.id);
      masked.add(name.maskedId);
    }
    return [exact, masked];
  }
}

const SPAN_KIND = 0;
const OP_KIND = 1;
const MEMORY_KIND = 2;

/** A span's own time outside its ops. Rounds: the path, the masked path; none by signature. */
export class SpanTimePart implements SidePart {
  constructor(
    private readonly space: KeySpace,
    readonly span: SpanName,
    readonly value: bigint,
  ) {}

  // Getters, not fields: nothing held per part that every part shares.
  get kind(): "span" {
    return "span";
  }

  get count(): number {
    return 0;
  }

  key(round: number): number | undefined {
    const anchor = this.span.anchor(round);
    return anchor === undefined ? undefined : this.space.key(SPAN_KIND, anchor, -1);
  }

  sortKey(round: number): string {
    return `span\u0000${this.span.anchorText(round)}`;
  }

  anchor(round: number): number | undefined {
    return this.span.anchor(round);
  }

  get label(): string {
    return `${this.span.path}${OWN_TIME}`;
  }
}

/** One op signature's time in one span. Rounds: the path, the masked path, the signature alone. */
export class OpTimePart implements SidePart {
  constructor(
    private readonly space: KeySpace,
    readonly span: SpanName,
    readonly signature: string,
    private readonly signatureId: number,
    readonly value: bigint,
    readonly count: number,
  ) {}

  get kind(): "op" {
    return "op";
  }

  key(round: number): number {
    return this.space.key(OP_KIND, this.span.anchor(round) ?? -1, this.signatureId);
  }

  sortKey(round: number): string {
    return `op\u0000${this.span.anchorText(round) ?? ""}\u0000${this.signature}`;
  }

  anchor(round: number): number | undefined {
    return this.span.anchor(round);
  }

  get label(): string {
    return `${this.signature} in ${this.span.path}`;
  }
}

/** What one (span, category, op) held at the peak. Rounds: the path, the masked path, none. */
export class MemoryPart implements SidePart {
  readonly #what: number;

  constructor(
    private readonly space: KeySpace,
    readonly span: SpanName,
    readonly part: MemoryPartSide,
  ) {
    this.#what = space.id(`${part.category}\u0000${part.op}`);
  }

  get value(): bigint {
    return this.part.bytes;
  }

  get count(): number {
    return this.part.allocations;
  }

  key(round: number): number {
    return this.space.key(MEMORY_KIND, this.span.anchor(round) ?? -1, this.#what);
  }

  sortKey(round: number): string {
    return `${this.span.anchorText(round) ?? ""}\u0000${this.part.category}\u0000${this.part.op}`;
  }

  anchor(round: number): number | undefined {
    return this.span.anchor(round);
  }

  get label(): string {
    return memoryLabel(this.part.span, this.part.category, this.part.op);
  }
}
