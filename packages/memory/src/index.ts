export { type AnalyzeMemoryInput, type AnalyzeMemoryOptions, analyzeMemory } from "./analyze-memory.js";
export { categoryForStep } from "./category-for-step.js";
export { dtypeSizeBytes, isKnownDtype } from "./dtype-size.js";
export { grownCopy, type NumberColumn } from "./grown-copy.js";
// Every result type of the analysis is public.
export type * from "./memory-analysis-types.js";
export {
  compareMemoryEvents,
  compareMemoryOrder,
  compareMemoryTies,
  sortMemoryEvents,
} from "./memory-event-order.js";
export { MemoryInputError, type MemoryInputErrorOptions } from "./memory-input-error.js";
export { MemoryTimeline, type MemoryTimelineOptions } from "./memory-timeline.js";
export { SlotIds } from "./slot-ids.js";
export { elementCount, multiplyU64Saturating, resolveStorageBytes, storageBytes } from "./storage-bytes.js";
export { exactU64, U64Column } from "./u64-column.js";
