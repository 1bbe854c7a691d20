import { EXECUTION_PHASES, type MetaEvent, SCHEMA, TIMING_MODES } from "@cg/schema/core";
import type { ProfileRunFields } from "./profile-run.js";
import { booleanText, enumText, jsonString, u64Text } from "./serialize/json-parts.js";
import { TraceSessionError } from "./trace-session-error.js";
import { WriterInputError } from "./writer-input-error.js";

function isZero(value: unknown): boolean {
  return value === 0 || value === 0n;
}

/**
 * Checks a run before anything is opened (spec §13.2 step 1): `capture_step` must be at least 1,
 * and every field must be something the wire can carry.
 * @throws TraceSessionError with code `invalid_run`.
 */
export function validateRun(run: ProfileRunFields): void {
  if (typeof run !== "object" || run === null) {
    throw new TraceSessionError({
      message: `run must be a ProfileRun, got ${String(run)}`,
      code: "invalid_run",
    });
  }
  if (isZero(run.capture_step)) {
    throw new TraceSessionError({
      message: "capture_step must be one-based and greater than zero",
      code: "invalid_run",
    });
  }
  try {
    jsonString(run.entrypoint, "entrypoint");
    jsonString(run.correlation_id, "correlation_id");
    enumText(run.phase, EXECUTION_PHASES, "phase");
    u64Text(run.capture_step, "capture_step");
    u64Text(run.warmup_steps, "warmup_steps");
    jsonString(run.device, "device");
    booleanText(run.measured_region_device_synchronized, "measured_region_device_synchronized");
    enumText(run.timing_mode, TIMING_MODES, "timing_mode");
    if (typeof run.tags !== "object" || run.tags === null || Array.isArray(run.tags)) {
      throw new WriterInputError({ message: "tags must be an object of string values", field: "tags" });
    }
    for (const [key, value] of Object.entries(run.tags)) jsonString(value, `tags.${key}`);
  } catch (error) {
    if (!WriterInputError.isInstance(error)) throw error;
    throw new TraceSessionError({
      message: `invalid run: ${error.message}`,
      cause: error,
      code: "invalid_run",
    });
  }
}

/** The `meta` event of a run (no `candle_version`, as the reference). */
export function metaEvent(run: ProfileRunFields, runId: string, timestamp: string): MetaEvent {
  return {
    kind: "meta",
    schema: SCHEMA,
    run_id: runId,
    correlation_id: run.correlation_id,
    entrypoint: run.entrypoint,
    phase: run.phase,
    timestamp,
    capture_step: run.capture_step,
    warmup_steps: run.warmup_steps,
    device: run.device,
    measured_region_device_synchronized: run.measured_region_device_synchronized,
    timing_mode: run.timing_mode,
    tags: { ...run.tags },
  };
}
