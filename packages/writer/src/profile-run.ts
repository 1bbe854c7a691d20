import {
  type ExecutionPhase,
  type RunMetadata,
  subtractU64Saturating,
  type TimingMode,
  type U64,
} from "@cg/schema/core";

/** The provenance fields of a run (spec §13.1), named as on the wire. */
export interface ProfileRunFields {
  entrypoint: string;
  correlation_id: string;
  phase: ExecutionPhase;
  capture_step: U64;
  warmup_steps: U64;
  device: string;
  measured_region_device_synchronized: boolean;
  timing_mode: TimingMode;
  tags: Readonly<Record<string, string>>;
}

function stepBefore(captureStep: U64): U64 {
  return subtractU64Saturating(captureStep, 1);
}

/**
 * Run provenance of one capture (spec §13.1). Immutable: every builder returns a new run.
 * Field names are the wire names; builders are camelCase. Values are checked by
 * `TraceSession.open`, which refuses a zero `capture_step` and any value the wire cannot carry.
 */
export class ProfileRun implements ProfileRunFields {
  readonly entrypoint: string;
  readonly correlation_id: string;
  readonly phase: ExecutionPhase;
  readonly capture_step: U64;
  readonly warmup_steps: U64;
  readonly device: string;
  readonly measured_region_device_synchronized: boolean;
  readonly timing_mode: TimingMode;
  readonly tags: Readonly<Record<string, string>>;

  private constructor(fields: ProfileRunFields) {
    this.entrypoint = fields.entrypoint;
    this.correlation_id = fields.correlation_id;
    this.phase = fields.phase;
    this.capture_step = fields.capture_step;
    this.warmup_steps = fields.warmup_steps;
    this.device = fields.device;
    this.measured_region_device_synchronized = fields.measured_region_device_synchronized;
    this.timing_mode = fields.timing_mode;
    this.tags = Object.freeze({ ...fields.tags });
    Object.freeze(this);
  }

  /**
   * A training capture with the reference defaults: correlation id `<entrypoint>/update-<step>`,
   * warm-up `step − 1` (not below 0), timing mode `host`, no sync flag, no tags.
   */
  static training(entrypoint: string, captureStep: U64, device: string): ProfileRun {
    return ProfileRun.withDefaults("train", entrypoint, captureStep, device);
  }

  /** The same defaults with phase `infer` (trace/6 has no inference constructor; this sets the fields). */
  static inference(entrypoint: string, captureStep: U64, device: string): ProfileRun {
    return ProfileRun.withDefaults("infer", entrypoint, captureStep, device);
  }

  /** A run with every field given explicitly. */
  static from(fields: ProfileRunFields): ProfileRun {
    return new ProfileRun(fields);
  }

  private static withDefaults(
    phase: ExecutionPhase,
    entrypoint: string,
    captureStep: U64,
    device: string,
  ): ProfileRun {
    return new ProfileRun({
      entrypoint,
      correlation_id: `${entrypoint}/update-${String(captureStep)}`,
      phase,
      capture_step: captureStep,
      warmup_steps: stepBefore(captureStep),
      device,
      measured_region_device_synchronized: false,
      timing_mode: "host",
      tags: {},
    });
  }

  private with(changes: Partial<ProfileRunFields>): ProfileRun {
    return new ProfileRun({ ...this.fields(), ...changes });
  }

  /** Inserts or overwrites one tag. */
  tag(key: string, value: string): ProfileRun {
    return this.with({ tags: { ...this.tags, [key]: value } });
  }

  /** Replaces the correlation id. */
  correlationId(value: string): ProfileRun {
    return this.with({ correlation_id: value });
  }

  /** Replaces the number of warm-up invocations. */
  warmupSteps(value: U64): ProfileRun {
    return this.with({ warmup_steps: value });
  }

  /** Timing mode `device_synchronized` **and** the measured-region sync flag. */
  deviceSynchronized(): ProfileRun {
    return this.with({ timing_mode: "device_synchronized", measured_region_device_synchronized: true });
  }

  /** Only the measured-region sync flag; the timing mode stays as it is. */
  measuredRegionDeviceSynchronized(): ProfileRun {
    return this.with({ measured_region_device_synchronized: true });
  }

  /** A plain copy of the fields. */
  fields(): ProfileRunFields {
    return {
      entrypoint: this.entrypoint,
      correlation_id: this.correlation_id,
      phase: this.phase,
      capture_step: this.capture_step,
      warmup_steps: this.warmup_steps,
      device: this.device,
      measured_region_device_synchronized: this.measured_region_device_synchronized,
      timing_mode: this.timing_mode,
      tags: { ...this.tags },
    };
  }

  /** The run metadata written in `meta`, given the run id and wall-clock timestamp. */
  metadata(runId: string, timestamp: string): RunMetadata {
    return { run_id: runId, timestamp, ...this.fields() };
  }
}
