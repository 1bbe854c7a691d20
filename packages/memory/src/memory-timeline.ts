import {
  addU64Saturating,
  compareCodePoints,
  compareU64,
  type DeviceMemoryEvent,
  type ExecutionStep,
  isU64,
  MEMORY_CATEGORIES,
  type MemoryCategory,
  type MemoryEvent,
  subtractU64Saturating,
  type U64,
} from "@cg/schema/core";
import { LiveAllocations } from "./live-allocations.js";
import type {
  CategoryBytes,
  DeviceMemorySummary,
  MemoryAnalysis,
  MemoryAnalysisCompat,
  MemoryTimelinePoint,
  PeakAllocation,
} from "./memory-analysis-types.js";
import { MemoryInputError } from "./memory-input-error.js";

export interface MemoryTimelineOptions {
  /** Keep one point per event (default true). A streaming summary of a huge file should pass false. */
  timeline?: boolean;
  /** Default `"reference"`; see {@link MemoryAnalysisCompat}. */
  compat?: MemoryAnalysisCompat;
  /**
   * Receives each timeline point as it is made, instead of the timeline keeping it (a streamed
   * query writes millions of points out this way). Implies `timeline: false` for `snapshot`.
   */
  onPoint?: (point: MemoryTimelinePoint) => void;
  /** The `step` a span carries itself (not inherited), for `autograd_retained_bytes`; see also `addSpan`. */
  spanStep?: (spanId: string) => ExecutionStep | undefined;
}

interface DeviceState {
  device: string;
  live: U64;
  /** Indexed like MEMORY_CATEGORIES (byte order); undefined = never touched on this device. */
  categories: (U64 | undefined)[];
  peak: U64;
  peakTimestamp: U64;
  allocCount: number;
  freeCount: number;
}

const CATEGORY_INDEX: Readonly<Record<MemoryCategory, number>> = {
  activation: 0,
  gradient: 1,
  optimizer: 2,
  other: 3,
  parameter: 4,
};
const ACTIVATION = CATEGORY_INDEX.activation;
/** Per MEMORY_CATEGORIES index (the wire's category code): the index in `DeviceState.categories`. */
const CATEGORY_INDEX_OF_CODE = MEMORY_CATEGORIES.map((category) => CATEGORY_INDEX[category]);
/** Per `DeviceState.categories` index: the MEMORY_CATEGORIES index. */
const CATEGORY_CODE = Object.keys(CATEGORY_INDEX).map((category) =>
  MEMORY_CATEGORIES.indexOf(category as MemoryCategory),
);

function categoryIndex(category: MemoryCategory, sequence: number): number {
  const index = CATEGORY_INDEX[category];
  if (index === undefined) {
    throw new MemoryInputError({
      message: `memory event #${sequence}: category must be one of ${MEMORY_CATEGORIES.join(", ")}, got ${String(category)}`,
      path: `memory[${sequence}].category`,
    });
  }
  return index;
}

function categoryBytes(categories: readonly (U64 | undefined)[]): CategoryBytes {
  const result: CategoryBytes = {};
  for (let index = 0; index < MEMORY_CATEGORIES.length; index++) {
    const bytes = categories[index];
    if (bytes !== undefined) result[MEMORY_CATEGORIES[index] as MemoryCategory] = bytes;
  }
  return result;
}

function requireU64(value: unknown, sequence: number, field: string): void {
  if (!isU64(value)) {
    throw new MemoryInputError({
      message: `memory event #${sequence}: ${field} must be a u64 (safe integer number or bigint in 0..2^64-1), got ${String(value)}`,
      path: `memory[${sequence}].${field}`,
    });
  }
}

function comparePeakAllocations(left: PeakAllocation, right: PeakAllocation): number {
  const byBytes = compareU64(right.bytes, left.bytes);
  if (byBytes !== 0) return byBytes < 0 ? -1 : 1;
  return compareCodePoints(left.tensor_id, right.tensor_id);
}

/**
 * Incremental memory analysis (spec §11). Feed `memory` events one at a time **in analysis order**
 * (timestamp, then alloc before free, then tensor id; see `sortMemoryEvents`) — the timeline does not
 * sort, and fed out of order it gives different peaks. State is proportional to the devices and the
 * live allocations (plus one point per event when the timeline is kept).
 */
export class MemoryTimeline {
  readonly #keepTimeline: boolean;
  readonly #onPoint: ((point: MemoryTimelinePoint) => void) | undefined;
  readonly #improved: boolean;
  readonly #spanStep: ((spanId: string) => ExecutionStep | undefined) | undefined;
  readonly #spanSteps = new Map<string, ExecutionStep | undefined>();
  readonly #devices = new Map<string, DeviceState>();
  /** The state `#deviceState` returned last. */
  #lastState: DeviceState | undefined;
  readonly #capacities = new Map<string, U64>();
  /** Reference mode: by tensor_id. Improved mode: by device and tensor_id. */
  readonly #live: LiveAllocations;
  readonly #points: MemoryTimelinePoint[] = [];
  #sequence = 0;
  #allocCount = 0;
  #freeCount = 0;
  #totalAllocBytes: U64 = 0;
  #peakBytes: U64 = 0;
  #peakTimestamp: U64 = 0;
  #peakDevice = "";
  /** The live bytes per category at the peak, indexed like `DeviceState.categories` (copied in place). */
  readonly #peakCategories: (U64 | undefined)[] = [undefined, undefined, undefined, undefined, undefined];
  #peakSequence = -1;
  /**
   * Slots of allocations live at the peak that have been removed since, in removal order: held
   * (not released) until the next peak, so with the live slots they give the breakdown, which is
   * only built when asked for.
   */
  readonly #removedSincePeak: number[] = [];
  #autogradRetained: U64 = 0;
  #autogradSeen = false;

  constructor(options: MemoryTimelineOptions = {}) {
    this.#onPoint = options.onPoint;
    this.#keepTimeline = this.#onPoint === undefined && (options.timeline ?? true);
    this.#improved = (options.compat ?? "reference") === "improved";
    this.#live = new LiveAllocations(this.#improved);
    this.#spanStep = options.spanStep;
  }

  /** Declares a span and its own `step` (first declaration of an id wins). */
  addSpan(span: { readonly id: string; readonly step?: ExecutionStep | undefined }): void {
    if (!this.#spanSteps.has(span.id)) this.#spanSteps.set(span.id, span.step);
  }

  /** A `device_memory` sample: capacity is the max of `used_bytes + free_bytes` (saturating). */
  pushDeviceSample(sample: Pick<DeviceMemoryEvent, "device" | "used_bytes" | "free_bytes">): void {
    const capacity = addU64Saturating(sample.used_bytes, sample.free_bytes);
    const known = this.#capacities.get(sample.device);
    if (known === undefined || compareU64(capacity, known) > 0) this.#capacities.set(sample.device, capacity);
  }

  /** Applies one memory event (spec §11 steps 3–7). */
  push(event: MemoryEvent): void {
    const sequence = this.#sequence;
    requireU64(event.timestamp_ns, sequence, "timestamp_ns");
    requireU64(event.bytes, sequence, "bytes");
    if (event.action !== "alloc" && event.action !== "free") {
      throw new MemoryInputError({
        message: `memory event #${sequence}: action must be "alloc" or "free", got ${String(event.action)}`,
        path: `memory[${sequence}].action`,
      });
    }
    const alloc = event.action === "alloc";
    this.pushValues(
      event.timestamp_ns,
      event.tensor_id,
      event.span_id,
      event.op_name,
      event.device,
      event.bytes,
      alloc,
      // A free's category is never read: its allocation's counts.
      alloc ? (CATEGORY_CODE[categoryIndex(event.category, sequence)] as number) : 0,
    );
  }

  /**
   * `push` of a memory event given as its values, for a reader that holds no event object:
   * `category` is the index in MEMORY_CATEGORIES. The values must be valid (as a validating reader
   * delivers them); they are not checked again.
   */
  pushValues(
    timestamp: U64,
    tensorId: string,
    spanId: string,
    opName: string | undefined,
    device: string,
    bytes: U64,
    alloc: boolean,
    category: number,
  ): void {
    const sequence = this.#sequence++;
    const state = this.#deviceState(device);
    if (alloc) {
      const index = CATEGORY_INDEX_OF_CODE[category] as number;
      this.#allocCount++;
      state.allocCount++;
      this.#totalAllocBytes = addU64Saturating(this.#totalAllocBytes, bytes);
      state.live = addU64Saturating(state.live, bytes);
      state.categories[index] = addU64Saturating(state.categories[index] ?? 0, bytes);
      const replaced = this.#live.add(tensorId, device, bytes, timestamp, category, spanId, opName, sequence);
      if (replaced >= 0) this.#remove(replaced);
    } else {
      this.#freeCount++;
      state.freeCount++;
      const live = this.#live;
      const slot = live.take(device, tensorId);
      if (slot < 0) {
        state.live = subtractU64Saturating(state.live, bytes);
      } else {
        // Reference: the allocation's bytes and category, taken from the *free* event's device (§17 Q5).
        // Only an entry the device already has is reduced: a free never creates one (spec §11 step 4).
        // By its code, as the alloc path indexes it: no name to look up again.
        const index = CATEGORY_INDEX_OF_CODE[live.categoryCode(slot)] as number;
        const freed = live.bytes(slot);
        this.#remove(slot);
        state.live = subtractU64Saturating(state.live, freed);
        const categoryLive = state.categories[index];
        if (categoryLive !== undefined) state.categories[index] = subtractU64Saturating(categoryLive, freed);
      }
    }

    if (this.#keepTimeline || this.#onPoint !== undefined) {
      const point: MemoryTimelinePoint = {
        timestamp_ns: timestamp,
        device: device,
        live_bytes: state.live,
        heap_bytes: state.live,
        free_bytes: this.#improved ? subtractU64Saturating(this.#capacities.get(device) ?? 0, state.live) : 0,
        by_category: categoryBytes(state.categories),
      };
      if (this.#onPoint === undefined) this.#points.push(point);
      else this.#onPoint(point);
    }
    if (compareU64(state.live, state.peak) > 0) {
      state.peak = state.live;
      state.peakTimestamp = timestamp;
    }
    if (compareU64(state.live, this.#peakBytes) > 0) {
      this.#peakBytes = state.live;
      this.#peakTimestamp = timestamp;
      this.#peakDevice = device;
      // Every alloc of a growing phase is a new peak: nothing is allocated here per peak.
      for (let index = 0; index < MEMORY_CATEGORIES.length; index++) {
        this.#peakCategories[index] = state.categories[index];
      }
      this.#peakSequence = sequence;
      for (const slot of this.#removedSincePeak) this.#live.release(slot);
      this.#removedSincePeak.length = 0;
    }
    if (!this.#autogradSeen && this.#stepOf(spanId) === "backward") {
      this.#autogradSeen = true;
      this.#autogradRetained = state.categories[ACTIVATION] ?? 0;
    }
  }

  /** The analysis of everything pushed so far. Pushing may continue afterwards. */
  snapshot(): MemoryAnalysis {
    const byDevice: DeviceMemorySummary[] = [...this.#devices.values()]
      .sort((left, right) => compareCodePoints(left.device, right.device))
      .map((state) => ({
        device: state.device,
        capacity_bytes: this.#capacities.get(state.device) ?? 0,
        peak_bytes: state.peak,
        peak_timestamp_ns: state.peakTimestamp,
        alloc_count: state.allocCount,
        free_count: state.freeCount,
      }));
    return {
      alloc_count: this.#allocCount,
      free_count: this.#freeCount,
      total_alloc_bytes: this.#totalAllocBytes,
      peak_bytes: this.#peakBytes,
      peak_timestamp_ns: this.#peakTimestamp,
      peak_device: this.#peakDevice,
      peak_by_category: categoryBytes(this.#peakCategories),
      autograd_retained_bytes: this.#autogradRetained,
      peak_breakdown: this.#peakBreakdown(),
      by_device: byDevice,
      timeline: this.#points.slice(),
    };
  }

  /** Same as {@link snapshot}; reads better once the last event has been pushed. */
  result(): MemoryAnalysis {
    return this.snapshot();
  }

  #peakBreakdown(): PeakAllocation[] {
    if (this.#peakSequence < 0) return [];
    const live = this.#live;
    const entries = this.#removedSincePeak.map((slot) => live.peakAllocation(slot));
    for (const slot of live.slots()) {
      if (live.sequence(slot) <= this.#peakSequence) entries.push(live.peakAllocation(slot));
    }
    return entries.sort(comparePeakAllocations);
  }

  #stepOf(spanId: string): ExecutionStep | undefined {
    if (this.#spanSteps.has(spanId)) return this.#spanSteps.get(spanId);
    return this.#spanStep?.(spanId);
  }

  #deviceState(device: string): DeviceState {
    // Runs of events name one device: the last one's state is found by a comparison.
    const last = this.#lastState;
    if (last !== undefined && last.device === device) return last;
    let state = this.#devices.get(device);
    if (state === undefined) {
      state = {
        device,
        live: 0,
        categories: [undefined, undefined, undefined, undefined, undefined],
        peak: 0,
        peakTimestamp: 0,
        allocCount: 0,
        freeCount: 0,
      };
      this.#devices.set(device, state);
    }
    this.#lastState = state;
    return state;
  }

  /** Frees a replaced or freed allocation's slot, or holds it for the peak breakdown if it was live at the peak. */
  #remove(slot: number): void {
    const live = this.#live;
    if (live.sequence(slot) <= this.#peakSequence) this.#removedSincePeak.push(slot);
    else live.release(slot);
  }
}
