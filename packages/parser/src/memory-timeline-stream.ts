// The memory timeline of a streamed trace: memory events in file order go through the bounded
// reorder window into a MemoryTimeline, so each point comes out in analysis order (spec §11) as
// `analyzeMemory` on the whole document would make it. Points are handed to the caller and not
// kept, so memory stays bounded by the window and the live allocations.
import { type MemoryAnalysis, MemoryTimeline, type MemoryTimelinePoint } from "@cg/memory";
import type { DeviceMemoryEvent, ExecutionStep, MemoryEvent } from "@cg/schema/core";
import { MemoryReorderWindow } from "./reorder-window.js";

export interface MemoryTimelineStreamOptions {
  /** Memory events held back to restore timestamp order (default 16,384; see `summarizeStream`). */
  reorderWindow?: number;
  /** Sees each timeline point, in analysis order. */
  onPoint?: (point: MemoryTimelinePoint) => void;
  /** The `step` of a span (for `autograd_retained_bytes`). */
  spanStep?: (spanId: string) => ExecutionStep | undefined;
}

const DEFAULT_MEMORY_REORDER_WINDOW = 16_384;

/** Feed memory events and device samples in file order; `finish` drains the window. */
export class MemoryTimelineStream {
  readonly #timeline: MemoryTimeline;
  readonly #window: MemoryReorderWindow;

  constructor(options: MemoryTimelineStreamOptions = {}) {
    this.#timeline = new MemoryTimeline({
      timeline: false,
      ...(options.onPoint === undefined ? {} : { onPoint: options.onPoint }),
      ...(options.spanStep === undefined ? {} : { spanStep: options.spanStep }),
    });
    this.#window = new MemoryReorderWindow(
      options.reorderWindow ?? DEFAULT_MEMORY_REORDER_WINDOW,
      (event) => this.#timeline.push(event),
      () => {},
    );
  }

  push(event: MemoryEvent): void {
    this.#window.push(event);
  }

  pushDeviceSample(sample: Pick<DeviceMemoryEvent, "device" | "used_bytes" | "free_bytes">): void {
    this.#timeline.pushDeviceSample(sample);
  }

  /**
   * The analysis without its timeline, and whether every event came within the window (when not,
   * points and figures may differ from a whole-document analysis).
   */
  finish(): { memory: MemoryAnalysis; exact: boolean } {
    this.#window.drain();
    return { memory: this.#timeline.result(), exact: this.#window.exact };
  }
}
