// The owner's side of the background sampler: starts the worker, drains the ring into a sink at
// span boundaries and at stop, and reports what the worker did.
import { Worker } from "node:worker_threads";
import type { MonotonicClock } from "@cg/clock";
import { type DeviceMemorySink, normalizeU64 } from "@cg/schema/core";
import { CudaProbeError } from "./cuda-probe-error.js";
import {
  type DeviceMemorySample,
  makeSample,
  type RecordOptions,
  recordSample,
} from "./device-memory-sample.js";
import { type RingReading, SampleRing } from "./sample-ring.js";
import {
  controlSlot,
  controlSlots,
  type SamplerWorkerData,
  type SamplerWorkerMessage,
  samplerState,
} from "./sampler-protocol.js";
import { samplerWorkerScript } from "./worker-script.js";

export interface SamplerOptions {
  /** Milliseconds between sampling rounds (fractions allowed, at least 0.05). */
  readonly intervalMs: number;
  /** Device indices to sample; all of the probe's devices by default. */
  readonly devices?: readonly number[];
  /** Readings the ring holds before the oldest are dropped (default 4096). */
  readonly capacity?: number;
  /** How long `stop()` waits for the worker to finish its round, in ms (default 2000). */
  readonly stopTimeoutMs?: number;
  /**
   * Also query this process's memory each round (a second NVML call per device). Default: the
   * probe's `processMemory` setting.
   */
  readonly processMemory?: boolean;
}

export type SamplerState = "starting" | "running" | "stopped" | "failed";

export interface SamplerStats {
  /** Readings the worker produced (one per device per round). */
  readonly samples: number;
  /** Readings handed to the owner by drains. */
  readonly delivered: number;
  /** Readings dropped because the ring was full (the oldest go first). */
  readonly drops: number;
  readonly rounds: number;
  /** Shortest and longest time between round starts; undefined before two rounds. */
  readonly minIntervalNs: number | undefined;
  readonly maxIntervalNs: number | undefined;
  /** Failed device readings (NVML errors); the last code is in `lastErrorCode`. */
  readonly errors: number;
  readonly lastErrorCode: number | undefined;
  /** CPU time of the sampler thread and the wall time it ran, when the OS exposes thread CPU time. */
  readonly workerCpuNs: number;
  readonly workerWallNs: number;
  /** workerCpuNs / workerWallNs, undefined when unknown. */
  readonly cpuShare: number | undefined;
}

export interface SamplerStart {
  readonly libraryPath: string;
  readonly deviceIndices: readonly number[];
  readonly clock: MonotonicClock;
  readonly processMemory: boolean;
}

const minimumIntervalMs = 0.05;

export class DeviceMemorySampler {
  readonly intervalMs: number;
  readonly devices: readonly number[];
  readonly #ring: SampleRing;
  readonly #control: Int32Array;
  readonly #worker: Worker;
  readonly #ready: Promise<void>;
  readonly #stopTimeoutMs: number;
  #delivered = 0;
  #error: CudaProbeError | undefined;
  #stopped = false;

  constructor(start: SamplerStart, options: SamplerOptions) {
    const intervalMs = options.intervalMs;
    if (typeof intervalMs !== "number" || !Number.isFinite(intervalMs) || intervalMs < minimumIntervalMs) {
      throw new RangeError(
        `intervalMs must be a finite number ≥ ${minimumIntervalMs}, got ${String(intervalMs)}`,
      );
    }
    this.intervalMs = intervalMs;
    this.devices = [...(options.devices ?? start.deviceIndices)];
    for (const index of this.devices) {
      if (!start.deviceIndices.includes(index)) throw new RangeError(`no device with index ${index}`);
    }
    this.#stopTimeoutMs = options.stopTimeoutMs ?? 2000;
    this.#ring = SampleRing.create(options.capacity ?? 4096);
    const controlBuffer = new SharedArrayBuffer(controlSlots * 4);
    this.#control = new Int32Array(controlBuffer);
    const data: SamplerWorkerData = {
      libraryPath: start.libraryPath,
      deviceIndices: this.devices,
      intervalMs,
      clockOrigin: start.clock.origin,
      ringBuffer: this.#ring.buffer,
      controlBuffer,
      processId: process.pid,
      processMemory: options.processMemory ?? start.processMemory,
    };
    const script = samplerWorkerScript();
    // The worker is self-contained (koffi, NVML, the clock): it takes none of the host's Node flags,
    // which may not apply to it (--input-type) or may load the host's instrumentation into it.
    this.#worker =
      script.kind === "file"
        ? new Worker(script.url, { workerData: data, execArgv: [] })
        : new Worker(script.code, { eval: true, workerData: data, execArgv: [] });
    this.#ready = new Promise<void>((resolve, reject) => {
      this.#worker.on("message", (message: SamplerWorkerMessage) => {
        // Held alive only while it starts (so whenReady() can be awaited); once it answers it must
        // never keep the observed program alive. (A 'message' listener refs the worker: unref after it.)
        this.#worker.unref();
        if (message.type === "running") resolve();
        else {
          this.#error = CudaProbeError.fromFailure(message.failure);
          reject(this.#error);
        }
      });
      this.#worker.on("error", (error) => {
        this.#error = new CudaProbeError({
          reason: "nvml-error",
          message: `sampler worker failed: ${error.message}`,
          cause: error,
        });
        Atomics.store(this.#control, controlSlot.state, samplerState.failed);
        reject(this.#error);
      });
      this.#worker.on("exit", () => {
        if (this.state === "starting") {
          this.#error ??= new CudaProbeError({
            reason: "nvml-error",
            message: "sampler worker exited before it started",
          });
          reject(this.#error);
        }
      });
    });
    // A failure is kept in `error`; only whenReady() callers see the rejection.
    this.#ready.catch(() => {});
  }

  get state(): SamplerState {
    switch (Atomics.load(this.#control, controlSlot.state)) {
      case samplerState.running:
        return "running";
      case samplerState.stopped:
        return "stopped";
      case samplerState.failed:
        return "failed";
      default:
        return "starting";
    }
  }

  /** The worker's failure, if it could not sample. */
  get error(): CudaProbeError | undefined {
    return this.#error;
  }

  /** Resolves once the worker samples; rejects with a CudaProbeError if it cannot. */
  whenReady(): Promise<void> {
    return this.#ready;
  }

  /** Takes every buffered reading, oldest first. */
  drain(): DeviceMemorySample[] {
    const samples: DeviceMemorySample[] = [];
    this.#drain((reading) => samples.push(toSample(reading)));
    return samples;
  }

  /** Writes every buffered reading to `sink` as `device_memory` events; returns how many. */
  drainInto(sink: DeviceMemorySink, options?: RecordOptions): number {
    return this.#drain((reading) => recordSample(sink, toSample(reading), options));
  }

  #drain(deliver: (reading: RingReading) => void): number {
    const count = this.#ring.drain(deliver);
    this.#delivered += count;
    return count;
  }

  /**
   * Stops the worker (waiting up to `stopTimeoutMs` for its current round), drains what is left into
   * `sink` when one is given, and returns the statistics. Synchronous, so it fits span ends and
   * session finish. Calling it again only drains and reports (`delivered` counts drains so far).
   */
  stop(sink?: DeviceMemorySink, options?: RecordOptions): SamplerStats {
    if (!this.#stopped) {
      this.#stopped = true;
      Atomics.store(this.#control, controlSlot.stop, 1);
      Atomics.notify(this.#control, controlSlot.stop);
      if (this.state === "running") {
        Atomics.wait(this.#control, controlSlot.state, samplerState.running, this.#stopTimeoutMs);
        // A worker stuck inside a driver call past the timeout is abandoned, never waited on forever.
        if (this.state === "running") void this.#worker.terminate();
      }
    }
    if (sink) this.drainInto(sink, options);
    return this.#statistics();
  }

  #statistics(): SamplerStats {
    const counters = this.#ring.counters();
    const cpu = Number(counters.workerCpuNs);
    const wall = Number(counters.workerWallNs);
    return {
      samples: Number(counters.written),
      delivered: this.#delivered,
      drops: Number(counters.drops),
      rounds: Number(counters.rounds),
      minIntervalNs: counters.minIntervalNs === undefined ? undefined : Number(counters.minIntervalNs),
      maxIntervalNs: counters.maxIntervalNs === undefined ? undefined : Number(counters.maxIntervalNs),
      errors: Number(counters.errors),
      lastErrorCode: counters.errors > 0n ? counters.lastErrorCode : undefined,
      workerCpuNs: cpu,
      workerWallNs: wall,
      cpuShare: cpu > 0 && wall > 0 ? cpu / wall : undefined,
    };
  }
}

function toSample(reading: RingReading): DeviceMemorySample {
  return makeSample(
    reading.deviceIndex,
    normalizeU64(reading.timestampNs),
    reading.totalBytes,
    reading.freeBytes,
    reading.usedBytes,
    reading.reservedBytes,
    reading.processUsedBytes,
  );
}
