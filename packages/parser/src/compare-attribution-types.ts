// The attribution of a comparison: which spans, ops, categories and allocations explain the change
// of the measured time and of the memory peak. Every figure is an exact integer; in each half the
// named parts, `unmatched` and `other` add up to the measured delta exactly.
import type { MemoryCategory } from "@cg/schema/core";
import type { SignedInteger } from "./signed-integer.js";

/** How a part was matched across the traces: by the same span path, by the path with its numbers masked, or by op signature (or category and op) alone. */
export type AttributionMatch = "path" | "masked_path" | "signature";

/** A named part of the time delta: an op signature's time in a span, or a span's own time outside its ops. */
export interface TimeAttributionPart {
  /** 1 for the part that explains most of the change (in the direction of the total delta). */
  rank: number;
  kind: "op" | "span";
  label: string;
  /** The span path key (`a/b [function]/Forward`, the candidate's); absent when matched by signature alone. */
  span?: string;
  /** The op signature (`matmul [32, 64] f32 cpu`) of an `op` part. */
  op?: string;
  match: AttributionMatch;
  baseline_ns: SignedInteger;
  candidate_ns: SignedInteger;
  delta_ns: SignedInteger;
  /** delta ÷ the total delta (0 when the total delta is 0). */
  share: number;
  /** Op calls, for `op` parts. */
  baseline_calls?: number;
  candidate_calls?: number;
}

/** Parts found on one side only after every matching round. */
export interface UnmatchedTime {
  baseline_ns: SignedInteger;
  candidate_ns: SignedInteger;
  delta_ns: SignedInteger;
  parts: number;
  /** The largest of them (at most 3). */
  largest: { side: "baseline" | "candidate"; label: string; ns: SignedInteger }[];
}

/** What the named and unmatched parts leave: smaller matched parts, and time outside every span's own time. */
export interface OtherTime {
  delta_ns: SignedInteger;
  /** Changed matched parts beyond the named ones, and their summed delta. */
  parts: number;
  parts_delta_ns: SignedInteger;
  /** Change of (measured total − summed own time of the measured subtree's spans): overlapping or clamped spans. */
  structure_delta_ns: SignedInteger;
}

export interface TimeAttribution {
  baseline_ns: SignedInteger;
  candidate_ns: SignedInteger;
  delta_ns: SignedInteger;
  delta_percent?: number;
  /** Ranked; Σ delta_ns + unmatched.delta_ns + other.delta_ns = delta_ns. */
  parts: TimeAttributionPart[];
  unmatched: UnmatchedTime;
  other: OtherTime;
  /** Σ of the named parts' deltas ÷ delta (0 when delta is 0). */
  named_share: number;
}

/** A named part of the peak delta: what a (span, category, op) held at each peak. */
export interface MemoryAttributionPart {
  rank: number;
  label: string;
  /** The allocating span's path key (the candidate's); absent when matched by category and op alone. */
  span?: string;
  category: MemoryCategory;
  /** The allocating op, absent when the events name none. */
  op?: string;
  match: AttributionMatch;
  baseline_bytes: SignedInteger;
  candidate_bytes: SignedInteger;
  delta_bytes: SignedInteger;
  share: number;
  baseline_allocations: number;
  candidate_allocations: number;
  /** The largest allocation of the part at the candidate's peak (else the baseline's). */
  largest?: { side: "baseline" | "candidate"; tensor_id: string; bytes: SignedInteger };
}

export interface UnmatchedMemory {
  baseline_bytes: SignedInteger;
  candidate_bytes: SignedInteger;
  delta_bytes: SignedInteger;
  parts: number;
  largest: { side: "baseline" | "candidate"; label: string; bytes: SignedInteger }[];
}

export interface OtherMemory {
  delta_bytes: SignedInteger;
  parts: number;
  parts_delta_bytes: SignedInteger;
  /** Change of (peak − bytes of the peak device's live allocations): frees of unknown tensors, replaced ids (spec §17 Q5). */
  structure_delta_bytes: SignedInteger;
}

/** Where a peak was reached: the device, the instant and the span of the allocation that reached it. */
export interface PeakLocation {
  device: string;
  timestamp_ns: SignedInteger;
  span?: string;
}

export interface CategoryDelta {
  category: MemoryCategory;
  baseline_bytes: SignedInteger;
  candidate_bytes: SignedInteger;
  delta_bytes: SignedInteger;
}

export interface PeakAttribution {
  baseline_bytes: SignedInteger;
  candidate_bytes: SignedInteger;
  delta_bytes: SignedInteger;
  delta_percent?: number;
  baseline_peak: PeakLocation;
  candidate_peak: PeakLocation;
  /** True when the peak is reached in another span (paths compared with their numbers masked). */
  moved: boolean;
  parts: MemoryAttributionPart[];
  unmatched: UnmatchedMemory;
  other: OtherMemory;
  named_share: number;
  /** Live bytes at each peak by category (the peak device's allocations), by |delta| descending. */
  by_category: CategoryDelta[];
}

export interface ComparisonAttribution {
  time: TimeAttribution;
  peak: PeakAttribution;
}

export interface AttributionOptions {
  /** Most named parts in each half (default 20); the rest go into `other`. */
  partLimit?: number;
}
