// Summary, health and memory peak folded from events one at a time, without building a document:
// the single implementation behind `summarizeStream`, and usable by any reader that already holds
// the events (a columnar load that reads each trace once). Kept: one row per span in a compact
// column table (health and depth need the whole span tree; about 30 bytes per span plus its id and
// name bytes), the live allocations, a bounded reorder window of memory events, and the span
// references still unresolved. Ops, tensors, memory events, gradients and edges are counted and
// dropped.
import {
  type MemoryAnalysis,
  MemoryTimeline,
  type MemoryTimelinePoint,
  resolveStorageBytes,
} from "@cg/memory";
import { normalizeU64, type RunMetadata, type TraceEvent, type U64 } from "@cg/schema/core";
import { AllocationPairing } from "./allocation-pairing.js";
import {
  type HealthIssue,
  type HealthOptions,
  type HealthReport,
  healthReport,
  unknownEdgeSpanIssue,
  unknownSpanIssue,
} from "./health-issue.js";
import { IdTable } from "./id-table.js";
import { type OpCost, OpIdOrder, opCost, opId } from "./op-cost.js";
import { pushPresenceWarnings } from "./presence-warnings.js";
import { type AnalysisValuesSink, MemoryReorderWindow } from "./reorder-window.js";
import type { SpanCost } from "./span-cost.js";
import { SpanOpFold } from "./span-cost-collector.js";
import { rankSpanCosts, type SpanCostColumns } from "./span-cost-columns.js";
import { SpanTable } from "./span-table.js";
import { TopList } from "./span-table-costs.js";
import { spanTableIssues } from "./span-table-health.js";
import { TraceParseError } from "./trace-parse-error.js";
import type { TraceSummary } from "./trace-summary.js";

export interface TraceSummarizerOptions extends HealthOptions {
  /**
   * Memory events held back to restore timestamp order (default 16,384). Writer output is sorted
   * or nearly so; as long as no memory event arrives after more than this many memory events with a
   * later timestamp (ties may come in any order), the memory figures equal those of `analyzeMemory`
   * on the whole document and `exact` stays true. Each held event costs about 100 bytes.
   */
  reorderWindow?: number;
  /**
   * The most bytes the span table may hold (default 1 GiB, about 25 million spans with short ids).
   * Past it `add` throws a `memory_budget` error that says how to go on.
   */
  spanBudgetBytes?: number;
  /**
   * Also rank spans and ops like `queryTrace` "slowest" and "heaviest", keeping this many of each
   * (the result's `rankings`). Costs a few typed columns per span and nothing per op.
   */
  rankLimit?: number;
  /**
   * Also compute every span's cost, as `spanCosts` does (the result's `spanCosts`), from the same
   * span table and the same per-span op sums the rankings use: three typed sums per span.
   */
  spanCosts?: boolean;
  /** Name used in messages (the budget error); default `<events>`. */
  file?: string;
  /** Sees each memory timeline point, in analysis order (the summary keeps none of them). */
  onMemoryPoint?: (point: MemoryTimelinePoint) => void;
}

/**
 * What a check of a trace gives (`checkColumns`, `TraceSummarizer.check`): its health and how it
 * was read, without the summary's figures.
 */
export type StreamCheck = Omit<StreamSummary, "summary" | "memory" | "rankings" | "spanCosts">;

export interface StreamRankings {
  slowest_spans: SpanCost[];
  slowest_ops: OpCost[];
  heaviest_spans: SpanCost[];
  heaviest_ops: OpCost[];
}

export interface StreamSummary {
  schema: string;
  run: RunMetadata;
  summary: Omit<TraceSummary, "self_times">;
  health: HealthReport;
  /** The memory analysis without its timeline. */
  memory: MemoryAnalysis;
  /**
   * False when memory events were further out of order than the reorder window: the memory figures
   * (and the health allocation pairing) may then differ from a whole-document analysis.
   */
  exact: boolean;
  /** Human-readable notes on how the result was computed (e.g. why it is not exact). */
  notes: string[];
  /** With `rankLimit`: spans and ops ranked as `queryTrace` ranks them. */
  rankings?: StreamRankings;
  /** With `spanCosts`: every span's cost, as columns over the summary's span table. */
  spanCosts?: SpanCostColumns;
  /** Physical lines and events read. */
  lines: number;
  events: number;
}

/**
 * Takes the validated events of one trace in file order (as `readTraceEvents` or
 * `readTraceBatches` deliver them: the reader's ordering and duplicate checks are assumed) and
 * returns the same figures as `summarizeStream`.
 */
export interface StreamSummarizer {
  /** Folds one event in; `line` and `index` (its 1-based line and record index) name it in errors. */
  add(event: TraceEvent, line?: number, index?: number): void;
  /**
   * The figures of every event added. `lines`: physical lines of the source (default: the last
   * line passed to `add`). Call once.
   */
  finish(lines?: number): StreamSummary;
}

const DEFAULT_REORDER_WINDOW = 16_384;
const DEFAULT_SPAN_BUDGET_BYTES = 1 << 30;
/** Spans between two looks at the span table's size. */
const BUDGET_CHECK_SPANS = 1 << 16;

type OpEvent = Extract<TraceEvent, { kind: "op" }>;

/** A summarizer for one trace's events (see `StreamSummarizer`). */
export function createTraceSummarizer(options: TraceSummarizerOptions = {}): StreamSummarizer {
  return new TraceSummarizer(options, new IdTable());
}

/** The window's analysis when only a check is wanted: memory events are paired, nothing more. */
const PAIRING_ONLY: AnalysisValuesSink = { pushValues: () => undefined };

/**
 * The summarizer behind both entry points. `ids`: the span ids table to use; a reader that already
 * interns every started span id (the line processor) shares its own, so ids are held once.
 */
export class TraceSummarizer implements StreamSummarizer {
  readonly #file: string;
  readonly #budget: number;
  readonly #options: TraceSummarizerOptions;
  readonly #ids: IdTable;
  readonly #spans: SpanTable;
  /** Undefined when only a check is wanted: memory events are then paired, not analysed. */
  readonly #timeline: MemoryTimeline | undefined;
  readonly #pairing = new AllocationPairing();
  readonly #pairingIssues: HealthIssue[] = [];
  readonly #reorderWindow: number;
  readonly #window: MemoryReorderWindow;
  #meta: Extract<TraceEvent, { kind: "meta" }> | undefined;
  #ops = 0;
  #tensors = 0;
  #memoryEvents = 0;
  #allocs = 0;
  #frees = 0;
  #deviceSamples = 0;
  #gradients = 0;
  #edges = 0;
  #events = 0;
  #lastLine = 0;
  /** The span id an event last named that was known then (consecutive events mostly share one). */
  #knownSpanId: string | undefined;
  // References to spans not (yet) seen; resolved at the end, in file order per group.
  readonly #pendingOps: string[] = [];
  readonly #pendingTensors: string[] = [];
  readonly #pendingMemory: string[] = [];
  readonly #pendingEdges: { from: string; to: string }[] = [];
  readonly #rankLimit: number | undefined;
  /** Per-span op sums over the span table, when ranking or asked for span costs. */
  readonly #costs: SpanOpFold | undefined;
  readonly #slowestOps: TopList<OpCost>;
  readonly #heaviestOps: TopList<OpCost>;
  /** Ties with each ranking's last entry, decided by op id. */
  readonly #slowestTies = new OpIdOrder();
  readonly #heaviestTies = new OpIdOrder();

  /**
   * `figures`: false when only `check` will be called. Memory events then still pass the reorder
   * window (the allocation pairing is a health rule, and `exact` is the same), but no memory
   * timeline is computed.
   */
  constructor(options: TraceSummarizerOptions, ids: IdTable, figures = true) {
    this.#options = options;
    this.#file = options.file ?? "<events>";
    this.#budget = options.spanBudgetBytes ?? DEFAULT_SPAN_BUDGET_BYTES;
    this.#ids = ids;
    const spans = new SpanTable(ids);
    this.#spans = spans;
    // The step of the span a memory event names; the last answer for a started span is kept, as
    // runs of memory events name the same span and a started span's step never changes.
    let stepSpanId: string | undefined;
    let step: ReturnType<SpanTable["step"]>;
    this.#timeline = figures
      ? new MemoryTimeline({
          timeline: false,
          ...(options.onMemoryPoint === undefined ? {} : { onPoint: options.onMemoryPoint }),
          spanStep: (spanId) => {
            if (spanId === stepSpanId) return step;
            const row = ids.get(spanId);
            if (row < 0 || row >= spans.size) return undefined;
            stepSpanId = spanId;
            step = spans.step(row);
            return step;
          },
        })
      : undefined;
    this.#reorderWindow = options.reorderWindow ?? DEFAULT_REORDER_WINDOW;
    this.#window = new MemoryReorderWindow(
      this.#reorderWindow,
      // The timeline takes the window's values: no event object per memory event.
      this.#timeline ?? PAIRING_ONLY,
      (device, tensorId, action) => this.#pairing.add(device, tensorId, action, this.#pairingIssues),
    );
    this.#rankLimit = options.rankLimit;
    this.#costs =
      options.rankLimit === undefined && options.spanCosts !== true ? undefined : new SpanOpFold(spans);
    this.#slowestOps = new TopList<OpCost>(options.rankLimit ?? 0);
    this.#heaviestOps = new TopList<OpCost>(options.rankLimit ?? 0);
  }

  /**
   * The span table being filled (rows in span start order, ids shared with the reader), for a
   * caller's own per-span figures: read it, never change it.
   */
  get spans(): SpanTable {
    return this.#spans;
  }

  add(event: TraceEvent, line = 0, index = 0): void {
    this.#events++;
    this.#lastLine = line;
    const ids = this.#ids;
    switch (event.kind) {
      case "op":
        this.#ops++;
        if (!this.#spanKnown(event.span_id)) this.#pendingOps.push(event.span_id);
        if (this.#costs !== undefined) this.#foldOp(event, this.#costs);
        return;
      case "tensor":
        this.#tensors++;
        if (!this.#spanKnown(event.span_id)) this.#pendingTensors.push(event.span_id);
        return;
      case "memory":
        this.#memoryEvents++;
        if (event.action === "alloc") this.#allocs++;
        else this.#frees++;
        if (!this.#spanKnown(event.span_id)) this.#pendingMemory.push(event.span_id);
        this.#window.push(event);
        return;
      case "span_start": {
        // Interning an id the shared table already holds returns its row.
        const row = ids.intern(event.id);
        const spans = this.#spans;
        spans.start(row, event);
        this.#costs?.spanStarted(row, event.id);
        if ((row & (BUDGET_CHECK_SPANS - 1)) === 0 && spans.byteLength > this.#budget) {
          throw overBudget(this.#file, line, index, spans.size, spans.byteLength, this.#budget);
        }
        return;
      }
      case "span_end":
        this.#spans.end(ids.get(event.id), event);
        return;
      case "device_memory":
        this.#deviceSamples++;
        this.#timeline?.pushDeviceSample(event);
        return;
      case "gradient":
        this.#gradients++;
        return;
      case "edge":
        this.#edges++;
        if (ids.get(event.from_span) < 0 || ids.get(event.to_span) < 0) {
          this.#pendingEdges.push({ from: event.from_span, to: event.to_span });
        }
        return;
      case "meta":
        this.#meta ??= event;
        return;
    }
  }

  /**
   * A memory event folded from its values, as `add` folds the event (for a column reader that has
   * no event object; `category`: index in MEMORY_CATEGORIES).
   */
  addMemoryValues(
    timestamp: U64,
    tensorId: string,
    spanId: string,
    opName: string | undefined,
    device: string,
    bytes: U64,
    alloc: boolean,
    category: number,
    line: number,
  ): void {
    this.#events++;
    this.#lastLine = line;
    this.#memoryEvents++;
    if (alloc) this.#allocs++;
    else this.#frees++;
    if (!this.#spanKnown(spanId)) this.#pendingMemory.push(spanId);
    this.#window.pushValues(timestamp, tensorId, spanId, opName, device, bytes, alloc, category);
  }

  /**
   * An op folded from its values, as `add` folds the op (for a column reader that has no event
   * object): `storageBytes` as resolved from the op's own fields; `event` builds the whole op, and
   * is called only when the op enters a ranking.
   */
  addOpValues(spanId: string, durationNs: U64, storageBytes: U64, event: () => OpEvent, line: number): void {
    this.#events++;
    this.#lastLine = line;
    this.#ops++;
    if (!this.#spanKnown(spanId)) this.#pendingOps.push(spanId);
    if (this.#costs !== undefined) this.#foldOpValues(spanId, durationNs, storageBytes, event, this.#costs);
  }

  /**
   * `count` ops or tensors in a row that name span `spanId`, folded as `add` folds them one by one.
   * For a reader that decoded them elsewhere and kept only their span (no rankings: ops are ranked
   * from whole events).
   */
  addSpanReferences(kind: "op" | "tensor", spanId: string, count: number): void {
    if (kind === "op" && this.#costs !== undefined)
      throw new Error("ranked summaries and span costs need each op's figures");
    this.#events += count;
    if (kind === "op") this.#ops += count;
    else this.#tensors += count;
    if (this.#spanKnown(spanId)) return;
    const pending = kind === "op" ? this.#pendingOps : this.#pendingTensors;
    for (let reference = 0; reference < count; reference++) pending.push(spanId);
  }

  /** True when a span of this id started already (once started, always known). */
  #spanKnown(spanId: string): boolean {
    if (spanId === this.#knownSpanId) return true;
    if (this.#ids.get(spanId) < 0) return false;
    this.#knownSpanId = spanId;
    return true;
  }

  #foldOp(event: OpEvent, costs: SpanOpFold): void {
    const bytes = resolveStorageBytes(event.storage_bytes, event.shape, event.dtype);
    this.#foldOpValues(event.span_id, event.duration_ns, bytes, () => event, costs);
  }

  /** Sums an op into its span and ranks it; `event` builds the whole op, called only for one that ranks. */
  #foldOpValues(spanId: string, durationNs: U64, bytes: U64, event: () => OpEvent, costs: SpanOpFold): void {
    const ordinal = costs.pushOp(spanId, durationNs, bytes);
    if (this.#rankLimit === undefined) return;
    const slowest = this.#slowestOps.admitsU64(durationNs);
    const heaviest = this.#heaviestOps.admitsU64(bytes);
    if (slowest || heaviest) this.#offerOp(spanId, durationNs, bytes, event, ordinal, slowest, heaviest);
  }

  /**
   * Offers an op to the rankings it may enter (a tie with the last entry is decided by the id, so
   * ops of equal size, common for bytes, get this far). Apart from `#foldOpValues`, so that the
   * closure's context is only made for an op that enters.
   */
  #offerOp(
    spanId: string,
    durationNs: U64,
    bytes: U64,
    event: () => OpEvent,
    ordinal: number,
    mayBeSlowest: boolean,
    mayBeHeaviest: boolean,
  ): void {
    const slowest =
      mayBeSlowest && entersOpRanking(this.#slowestOps, this.#slowestTies, durationNs, spanId, ordinal);
    const heaviest =
      mayBeHeaviest && entersOpRanking(this.#heaviestOps, this.#heaviestTies, bytes, spanId, ordinal);
    if (slowest || heaviest)
      this.#enterOp(opId(spanId, ordinal), durationNs, bytes, event, ordinal, slowest, heaviest);
  }

  #enterOp(
    id: string,
    durationNs: U64,
    bytes: U64,
    event: () => OpEvent,
    ordinal: number,
    slowest: boolean,
    heaviest: boolean,
  ): void {
    const cost = () => opCost({ ...event(), storage_bytes: bytes }, ordinal);
    if (slowest) this.#slowestOps.offer(BigInt(durationNs), id, cost);
    if (heaviest) this.#heaviestOps.offer(BigInt(bytes), id, cost);
  }

  /** The trace's health and how it was read (call once, instead of `finish`). */
  check(lines = this.#lastLine): StreamCheck {
    return this.#check(lines).check;
  }

  finish(lines = this.#lastLine): StreamSummary {
    const { check, structure } = this.#check(lines);
    const timeline = this.#timeline;
    if (timeline === undefined) throw new Error("TraceSummarizer.finish: made for a check only");
    const memory = timeline.result();
    const spans = this.#spans;
    const costs = this.#costs?.finish(this.#options, structure);
    let rankings: StreamRankings | undefined;
    if (costs !== undefined && this.#rankLimit !== undefined) {
      const ranked = rankSpanCosts(costs, this.#rankLimit);
      rankings = {
        slowest_spans: ranked.slowest,
        slowest_ops: this.#slowestOps.values(),
        heaviest_spans: ranked.heaviest,
        heaviest_ops: this.#heaviestOps.values(),
      };
    }
    const { schema, run, health, exact, notes, events } = check;
    return {
      ...(rankings === undefined ? {} : { rankings }),
      ...(costs !== undefined && this.#options.spanCosts === true ? { spanCosts: costs } : {}),
      schema,
      run,
      summary: {
        op_count: this.#ops,
        total_ns: measuredTableTotal(spans),
        span_count: spans.size,
        root_span_count: structure.counts.roots,
        max_depth: structure.maxDepth,
        alloc_count: this.#allocs,
        free_count: this.#frees,
        peak_bytes: memory.peak_bytes,
      },
      health,
      memory,
      exact,
      notes,
      lines: check.lines,
      events,
    };
  }

  #check(lines: number): { check: StreamCheck; structure: ReturnType<typeof spanTableIssues> } {
    const meta = this.#meta;
    // A validating reader rejects a trace without its meta first; events from elsewhere may lack it.
    if (meta === undefined) throw new Error(`trace summary of ${this.#file}: no meta event`);
    this.#window.drain();
    const options = this.#options;
    const spans = this.#spans;
    const ids = this.#ids;
    const issues: HealthIssue[] = [];
    const structure = spanTableIssues(spans, options, issues);
    const { counts } = structure;
    for (const spanId of this.#pendingOps) {
      if (ids.get(spanId) < 0) issues.push(unknownSpanIssue("operation", spanId));
    }
    for (const spanId of this.#pendingTensors) {
      if (ids.get(spanId) < 0) issues.push(unknownSpanIssue("tensor", spanId));
    }
    for (const spanId of this.#pendingMemory) {
      if (ids.get(spanId) < 0) issues.push(unknownSpanIssue("memory", spanId));
    }
    for (const edge of this.#pendingEdges) {
      if (ids.get(edge.from) < 0 || ids.get(edge.to) < 0)
        issues.push(unknownEdgeSpanIssue(edge.from, edge.to));
    }
    for (const issue of this.#pairingIssues) issues.push(issue);
    this.#pairing.finish(issues);
    pushPresenceWarnings(issues, {
      operations: this.#ops,
      tensors: this.#tensors,
      memory: this.#memoryEvents,
      deviceMemory: this.#deviceSamples,
      gradients: this.#gradients,
      forward: counts.forward,
      backward: counts.backward,
      optimizer: counts.optimizer,
      train: meta.phase === "train",
    });
    const health = healthReport(issues, spans.size, counts, {
      operations: this.#ops,
      tensors: this.#tensors,
      memory_events: this.#memoryEvents,
      device_memory_samples: this.#deviceSamples,
      gradients: this.#gradients,
      edges: this.#edges,
    });

    const exact = this.#window.exact;
    const notes: string[] = [];
    if (!exact) {
      notes.push(
        `memory events arrived more than ${this.#reorderWindow} events out of timestamp order; memory figures and allocation pairing may differ from a whole-document analysis (raise reorderWindow or use parseTrace)`,
      );
    }
    const { kind: _kind, schema, ...run } = meta;
    return { check: { schema, run, health, exact, notes, lines, events: this.#events }, structure };
  }
}

/** Exact total of the measured spans' durations. */
function measuredTableTotal(spans: SpanTable): TraceSummary["total_ns"] {
  let total = 0n;
  for (let row = 0; row < spans.size; row++) if (spans.measured(row)) total += BigInt(spans.durationU64(row));
  return normalizeU64(total);
}

function overBudget(
  file: string,
  line: number,
  index: number,
  spanCount: number,
  bytes: number,
  budget: number,
): TraceParseError {
  const megabytes = (value: number) => `${Math.round(value / (1 << 20))} MB`;
  return new TraceParseError({
    message:
      `${file} has more than ${spanCount} spans; holding them needs ${megabytes(bytes)}, over the span budget of ${megabytes(budget)} ` +
      "(raise spanBudgetBytes, or CG_TRACE_SPAN_BUDGET_MB for cg-trace, on a machine with the memory to spare)",
    code: "memory_budget",
    stage: "stream",
    line,
    index,
    file,
  });
}

/** Whether the op `ordinal` of `spanId` with `value` would enter `ranking` now (its id built only if it does). */
function entersOpRanking(
  ranking: TopList<OpCost>,
  ties: OpIdOrder,
  value: U64,
  spanId: string,
  ordinal: number,
): boolean {
  const standing = ranking.standingU64(value);
  return standing > 0 || (standing === 0 && ties.before(spanId, ordinal, ranking.lastId));
}
