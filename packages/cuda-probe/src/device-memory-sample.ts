import { type DeviceMemorySink, normalizeU64, type U64 } from "@cg/schema/core";

/** Trace device label for an NVIDIA device index (`cuda:<index>`, the trace convention). */
export function deviceLabel(index: number): string {
  return `cuda:${index}`;
}

/** One device-memory reading. Byte counts are exact; a metric the driver cannot give is undefined. */
export interface DeviceMemorySample {
  /** `cuda:<index>`. */
  readonly device: string;
  readonly index: number;
  /** Nanoseconds on the probe's monotonic clock (the session's clock when one was given). */
  readonly timestampNs: U64;
  readonly totalBytes: U64;
  readonly freeBytes: U64;
  /** NVML's `used`: with the v2 query it excludes `reservedBytes`, with v1 it includes it. */
  readonly usedBytes: U64;
  /** Memory the driver and firmware reserve (v2 query only). */
  readonly reservedBytes: U64 | undefined;
  /** Memory this process holds on the device (running-processes query), where the driver tells. */
  readonly processUsedBytes: U64 | undefined;
}

export interface RecordOptions {
  /**
   * Also pass NVML's driver-reserved bytes as `reserved_bytes`. Off by default: the trace field means
   * caching-allocator reserved bytes, which NVML cannot see, and the reference writer never writes it.
   */
  readonly includeReserved?: boolean;
}

export function makeSample(
  index: number,
  timestampNs: U64,
  totalBytes: bigint,
  freeBytes: bigint,
  usedBytes: bigint,
  reservedBytes: bigint | undefined,
  processUsedBytes: bigint | undefined,
): DeviceMemorySample {
  return {
    device: deviceLabel(index),
    index,
    timestampNs,
    totalBytes: normalizeU64(totalBytes),
    freeBytes: normalizeU64(freeBytes),
    usedBytes: normalizeU64(usedBytes),
    reservedBytes: reservedBytes === undefined ? undefined : normalizeU64(reservedBytes),
    processUsedBytes: processUsedBytes === undefined ? undefined : normalizeU64(processUsedBytes),
  };
}

/**
 * Writes one sample as a `device_memory` event. `used_bytes` is total − free, the cudaMemGetInfo
 * view the event is defined by (spec §2.8): the same under the v1 and v2 queries, and used + free
 * is the device's capacity (spec §11.8).
 */
export function recordSample(
  sink: DeviceMemorySink,
  sample: DeviceMemorySample,
  options?: RecordOptions,
): void {
  const total = typeof sample.totalBytes === "bigint" ? sample.totalBytes : BigInt(sample.totalBytes);
  const free = typeof sample.freeBytes === "bigint" ? sample.freeBytes : BigInt(sample.freeBytes);
  const inUse = normalizeU64(total > free ? total - free : 0n);
  if (options?.includeReserved === true && sample.reservedBytes !== undefined) {
    sink.recordDeviceMemory(sample.device, inUse, sample.freeBytes, sample.timestampNs, sample.reservedBytes);
  } else {
    sink.recordDeviceMemory(sample.device, inUse, sample.freeBytes, sample.timestampNs);
  }
}
