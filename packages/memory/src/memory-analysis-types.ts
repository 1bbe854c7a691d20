import type { MemoryCategory, U64 } from "@cg/schema/core";

/** Bytes per category; only categories ever touched on the device, keys in byte order (spec §11). */
export type CategoryBytes = Partial<Record<MemoryCategory, U64>>;

/** One point of the memory timeline, taken after every memory event (spec §11 step 5). */
export interface MemoryTimelinePoint {
  timestamp_ns: U64;
  device: string;
  /** The device's live byte total after the event. */
  live_bytes: U64;
  /** Same value as `live_bytes` (the reference reports both). */
  heap_bytes: U64;
  /** 0 in `"reference"` mode (spec §17 Q4); capacity − live in `"improved"` mode. */
  free_bytes: U64;
  by_category: CategoryBytes;
}

/** A live allocation at the global peak. */
export interface PeakAllocation {
  tensor_id: string;
  device: string;
  bytes: U64;
  category: MemoryCategory;
  span_id: string;
  op_name?: string;
  timestamp_ns: U64;
}

/** Per-device figures (spec §11 step 9). */
export interface DeviceMemorySummary {
  device: string;
  /** Max of `used_bytes + free_bytes` over the device's `device_memory` samples; 0 without samples. */
  capacity_bytes: U64;
  peak_bytes: U64;
  peak_timestamp_ns: U64;
  alloc_count: number;
  free_count: number;
}

/** The memory analysis of spec §11. Field names are the spec's. */
export interface MemoryAnalysis {
  alloc_count: number;
  free_count: number;
  /** Sum of all allocation sizes (saturating); may exceed the peak. */
  total_alloc_bytes: U64;
  /** Largest live total of any single device at any point (devices are not added together). */
  peak_bytes: U64;
  peak_timestamp_ns: U64;
  /** `""` when no event ever raised a peak above 0. */
  peak_device: string;
  peak_by_category: CategoryBytes;
  autograd_retained_bytes: U64;
  /** Live allocations at the global peak, by bytes descending, then `tensor_id` in code-point order. */
  peak_breakdown: PeakAllocation[];
  /** Devices with memory events, sorted by name (code-point order). */
  by_device: DeviceMemorySummary[];
  /** Empty when the timeline was disabled. */
  timeline: MemoryTimelinePoint[];
}

/**
 * `"reference"` (default) reproduces candle-graph 0.7.0, quirks included (spec §17 Q4/Q5).
 * `"improved"` keys lifetimes by (device, tensor_id) and reports timeline `free_bytes` as capacity − live.
 */
export type MemoryAnalysisCompat = "reference" | "improved";
