import type { DeviceMemoryEvent, ExecutionStep, MemoryEvent } from "@cg/schema/core";
import type { MemoryAnalysis, MemoryAnalysisCompat } from "./memory-analysis-types.js";
import { sortMemoryEvents } from "./memory-event-order.js";
import { MemoryTimeline } from "./memory-timeline.js";

export interface AnalyzeMemoryInput {
  memory: readonly MemoryEvent[];
  /** Spans with their own `step`; only `backward` matters (for `autograd_retained_bytes`). */
  spans?: readonly { readonly id: string; readonly step?: ExecutionStep | undefined }[];
  /** Capacity samples (spec §11 step 8). */
  device_memory?: readonly Pick<DeviceMemoryEvent, "device" | "used_bytes" | "free_bytes">[];
}

export interface AnalyzeMemoryOptions {
  /** Keep the per-event timeline (default true). */
  timeline?: boolean;
  /** Default `"reference"`. In `"improved"` mode `free_bytes` uses the capacity from all samples. */
  compat?: MemoryAnalysisCompat;
}

/**
 * The memory analysis of a document (spec §11): events are put in analysis order (timestamp, alloc
 * before free, tensor id; stable) and fed to a {@link MemoryTimeline}. Only `memory` events create
 * lifetimes; without them every figure is zero and the timeline is empty.
 */
export function analyzeMemory(input: AnalyzeMemoryInput, options: AnalyzeMemoryOptions = {}): MemoryAnalysis {
  const timeline = new MemoryTimeline(options);
  for (const span of input.spans ?? []) timeline.addSpan(span);
  for (const sample of input.device_memory ?? []) timeline.pushDeviceSample(sample);
  for (const event of sortMemoryEvents(input.memory)) timeline.push(event);
  return timeline.result();
}
