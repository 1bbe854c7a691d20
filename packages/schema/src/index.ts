// `@cg/schema`: the wire contract (`@cg/schema/core`) plus a zod schema per event kind, wire enum and
// u64 for validating JavaScript values. Readers that never call a zod schema import
// `@cg/schema/core`, which loads without zod.

/**
 * @deprecated The code-generation kit lives at `@cg/schema/codegen` (internal plumbing, not the
 * trace contract). These root re-exports keep 1.x importers working and go in the next major.
 */
export { generatedFunction, type SourceCompiler, SourceConstants, sourceString } from "./codegen.js";
export * from "./core.js";
export {
  EventKind,
  ExecutionPhase,
  ExecutionStep,
  GradientState,
  MemoryAction,
  MemoryCategory,
  SpanKind,
  TimingMode,
} from "./enums.js";
export * from "./events.js";
export { U64 } from "./u64-schema.js";
export { type EventOfLayout, type EventSchemaOf, zodSchemaOf } from "./zod-from-layout.js";
