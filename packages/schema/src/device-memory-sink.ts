import type { U64 } from "./u64.js";

/**
 * Anything that records `device_memory` events (spec §2.8): a trace session, a test double, another
 * tool. Defined here so that a device probe can feed a session without depending on the writer.
 */
export interface DeviceMemorySink {
  recordDeviceMemory(
    device: string,
    usedBytes: U64,
    freeBytes: U64,
    timestampNs?: U64,
    reservedBytes?: U64,
  ): void;
}
