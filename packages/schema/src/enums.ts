import { z } from "zod";
import {
  EVENT_KINDS,
  EXECUTION_PHASES,
  EXECUTION_STEPS,
  GRADIENT_STATES,
  MEMORY_ACTIONS,
  MEMORY_CATEGORIES,
  SPAN_KINDS,
  TIMING_MODES,
  type EventKind as WireEventKind,
  type ExecutionPhase as WireExecutionPhase,
  type ExecutionStep as WireExecutionStep,
  type GradientState as WireGradientState,
  type MemoryAction as WireMemoryAction,
  type MemoryCategory as WireMemoryCategory,
  type SpanKind as WireSpanKind,
  type TimingMode as WireTimingMode,
} from "./wire-enums.js";

// The zod schema of each wire enum (wire-enums.ts), for validating JavaScript values; the type of
// the same name is the plain union of its values.

export const EventKind = z.enum(EVENT_KINDS);
export type EventKind = WireEventKind;
export const SpanKind = z.enum(SPAN_KINDS);
export type SpanKind = WireSpanKind;
export const ExecutionPhase = z.enum(EXECUTION_PHASES);
export type ExecutionPhase = WireExecutionPhase;
export const ExecutionStep = z.enum(EXECUTION_STEPS);
export type ExecutionStep = WireExecutionStep;
export const TimingMode = z.enum(TIMING_MODES);
export type TimingMode = WireTimingMode;
export const GradientState = z.enum(GRADIENT_STATES);
export type GradientState = WireGradientState;
export const MemoryAction = z.enum(MEMORY_ACTIONS);
export type MemoryAction = WireMemoryAction;
export const MemoryCategory = z.enum(MEMORY_CATEGORIES);
export type MemoryCategory = WireMemoryCategory;
