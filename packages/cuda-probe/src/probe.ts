// The probe: opened once, read at checkpoints, closed (or shut down at process exit).
import { type ClockOrigin, MonotonicClock } from "@cg/clock";
import { type DeviceMemorySink, normalizeU64, type U64 } from "@cg/schema/core";
import { CudaProbeError, type CudaProbeReason } from "./cuda-probe-error.js";
import {
  type DeviceMemorySample,
  deviceLabel,
  makeSample,
  type RecordOptions,
  recordSample,
} from "./device-memory-sample.js";
import { DeviceReader } from "./device-reader.js";
import { NvmlSession } from "./nvml-session.js";
import { DeviceMemorySampler, type SamplerOptions } from "./sampler.js";

export interface OpenProbeOptions {
  /** Load NVML from this file instead of `libnvidia-ml.so.1` / `libnvidia-ml.so` (or CG_NVML_LIBRARY). */
  readonly libraryPath?: string;
  /** The session's clock (or its origin), so samples carry the trace's timestamps. A new clock by default. */
  readonly clock?: MonotonicClock | ClockOrigin;
  /**
   * Query this process's own device memory with each reading (default true). It costs a second NVML
   * call per device; turn it off for the cheapest checkpoints.
   */
  readonly processMemory?: boolean;
}

/** An NVIDIA device as NVML names it. */
export interface CudaDevice {
  readonly index: number;
  /** `cuda:<index>`, the trace's device label. */
  readonly label: string;
  readonly name: string;
  readonly uuid: string;
  readonly totalBytes: U64;
  /** Which memory query serves this device (v1 where the driver lacks v2). */
  readonly memoryQuery: "v2" | "v1";
}

export type OpenProbeResult =
  | { readonly ok: true; readonly probe: CudaProbe }
  | { readonly ok: false; readonly reason: CudaProbeReason; readonly error: CudaProbeError };

const openProbes = new Set<CudaProbe>();
let exitHookInstalled = false;

function shutdownAtExit(): void {
  for (const probe of openProbes) probe.close();
}

/**
 * Opens NVML and describes its devices. Never throws for a missing GPU, driver or library: the
 * result says why the probe is unavailable. Creates no CUDA context.
 */
export function openProbe(options: OpenProbeOptions = {}): OpenProbeResult {
  const clock = resolveClock(options.clock);
  const processMemory = options.processMemory ?? true;
  let opened: ReturnType<typeof NvmlSession.open>;
  try {
    opened = NvmlSession.open(options.libraryPath);
  } catch (error) {
    const failure = new CudaProbeError({
      reason: "nvml-error",
      message: `loading NVML failed: ${String(error)}`,
      cause: error,
    });
    return { ok: false, reason: failure.reason, error: failure };
  }
  if (!opened.ok) {
    const { ok: _ok, ...failure } = opened;
    const error = CudaProbeError.fromFailure(failure);
    return { ok: false, reason: error.reason, error };
  }
  const session = opened.session;
  const readers: DeviceReader[] = [];
  const devices: CudaDevice[] = [];
  let denied: CudaProbeError | undefined;
  for (let index = 0; index < session.deviceCount; index++) {
    const info = session.describe(index);
    if (!("handle" in info)) {
      const error = CudaProbeError.fromFailure(info);
      // A GPU this process may not use (outside its container's device cgroup) is left out.
      if (error.reason === "permission-denied") {
        denied = error;
        continue;
      }
      session.close();
      return { ok: false, reason: error.reason, error };
    }
    const reader = new DeviceReader(session.binding, index, info.handle, process.pid, processMemory);
    const result = reader.read();
    if (result !== 0) {
      session.close();
      const error = CudaProbeError.fromFailure(result);
      return { ok: false, reason: error.reason, error };
    }
    readers.push(reader);
    devices.push({
      index,
      label: deviceLabel(index),
      name: info.name,
      uuid: info.uuid,
      totalBytes: normalizeU64(reader.totalBytes),
      memoryQuery: reader.memoryQuery,
    });
  }
  if (devices.length === 0 && denied) {
    session.close();
    return { ok: false, reason: denied.reason, error: denied };
  }
  const probe = new CudaProbe(session, readers, devices, clock, processMemory);
  openProbes.add(probe);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", shutdownAtExit);
  }
  return { ok: true, probe };
}

/** The given clock; a clock from another copy of @cg/clock is rebuilt from its origin (same timeline). */
function resolveClock(clock: OpenProbeOptions["clock"]): MonotonicClock {
  if (clock === undefined) return new MonotonicClock();
  if (clock instanceof MonotonicClock) return clock;
  const origin = (clock as { origin?: ClockOrigin }).origin;
  return MonotonicClock.fromOrigin(origin ?? (clock as ClockOrigin));
}

export class CudaProbe {
  /** The error of the last `recordInto` that could not read a device, if any. */
  lastError: CudaProbeError | undefined;
  readonly #session: NvmlSession;
  readonly #readers: readonly DeviceReader[];
  readonly #processMemory: boolean;

  /** @internal Use {@link openProbe}. */
  constructor(
    session: NvmlSession,
    readers: readonly DeviceReader[],
    readonly devices: readonly CudaDevice[],
    readonly clock: MonotonicClock,
    processMemory: boolean,
  ) {
    this.#processMemory = processMemory;
    this.#session = session;
    this.#readers = readers;
  }

  /** The NVML library file in use. */
  get libraryPath(): string {
    return this.#session.binding.libraryPath;
  }

  get closed(): boolean {
    return !this.#session.isOpen;
  }

  /** One reading per device, each stamped on the probe's clock. Throws a CudaProbeError on NVML failure. */
  sample(): DeviceMemorySample[] {
    this.#assertOpen();
    const samples: DeviceMemorySample[] = [];
    for (const reader of this.#readers) {
      const result = reader.read();
      if (result !== 0) throw CudaProbeError.fromFailure(result);
      samples.push(this.#toSample(reader));
    }
    return samples;
  }

  /**
   * Samples every device into `sink` as `device_memory` events; returns how many were written. A
   * device NVML cannot read is skipped and its error kept in `lastError`, so a checkpoint never
   * throws because of the driver. Throws only when the probe is closed.
   */
  recordInto(sink: DeviceMemorySink, options?: RecordOptions): number {
    this.#assertOpen();
    let recorded = 0;
    for (const reader of this.#readers) {
      const result = reader.read();
      if (result !== 0) {
        this.lastError = CudaProbeError.fromFailure(result);
        continue;
      }
      recordSample(sink, this.#toSample(reader), options);
      recorded++;
    }
    return recorded;
  }

  /** Starts sampling on a worker thread, which opens NVML itself. See {@link DeviceMemorySampler}. */
  startSampler(options: SamplerOptions): DeviceMemorySampler {
    this.#assertOpen();
    return new DeviceMemorySampler(
      {
        libraryPath: this.libraryPath,
        deviceIndices: this.devices.map((device) => device.index),
        clock: this.clock,
        processMemory: this.#processMemory,
      },
      options,
    );
  }

  /** Releases NVML (nvmlShutdown). Idempotent. Samplers run on their own NVML session. */
  close(): void {
    this.#session.close();
    openProbes.delete(this);
  }

  #toSample(reader: DeviceReader): DeviceMemorySample {
    return makeSample(
      reader.index,
      this.clock.now(),
      reader.totalBytes,
      reader.freeBytes,
      reader.usedBytes,
      reader.reservedBytes,
      reader.processUsedBytes,
    );
  }

  #assertOpen(): void {
    if (!this.#session.isOpen) throw CudaProbeError.fromFailure({ reason: "closed" });
  }
}
