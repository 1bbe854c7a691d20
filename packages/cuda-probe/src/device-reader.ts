// Reads one device's memory with preallocated buffers: no allocation per reading besides the
// bigints themselves. Results land in fields; read() returns 0 or the failure.
import {
  memoryV1Layout,
  memoryV2Layout,
  memoryV2Version,
  NvmlReturn,
  processInfoLayout,
  valueNotAvailable,
} from "./nvml-constants.js";
import type { NvmlBinding } from "./nvml-library.js";
import { callFailure, type NvmlCallFailure } from "./nvml-session.js";

const initialProcessCapacity = 16;

export class DeviceReader {
  totalBytes = 0n;
  freeBytes = 0n;
  usedBytes = 0n;
  /** Unknown (undefined) where only the v1 query works. */
  reservedBytes: bigint | undefined = undefined;
  /** This process's memory on the device; unknown where the process query is unsupported. */
  processUsedBytes: bigint | undefined = undefined;

  #useV2: boolean;
  #processesSupported: boolean;
  readonly #memory = new Uint8Array(memoryV2Layout.size);
  readonly #memoryView = new DataView(this.#memory.buffer);
  readonly #count = new Uint8Array(4);
  readonly #countView = new DataView(this.#count.buffer);
  #infos = new Uint8Array(initialProcessCapacity * processInfoLayout.size);
  #infosView = new DataView(this.#infos.buffer);

  constructor(
    readonly binding: NvmlBinding,
    readonly index: number,
    readonly handle: bigint,
    readonly processId: number = process.pid,
    readProcessMemory = true,
  ) {
    this.#useV2 = binding.deviceGetMemoryInfoV2 !== undefined;
    this.#processesSupported = readProcessMemory && binding.runningProcesses !== undefined;
  }

  /** Which memory query this reader uses now. */
  get memoryQuery(): "v2" | "v1" {
    return this.#useV2 ? "v2" : "v1";
  }

  read(): 0 | NvmlCallFailure {
    const memoryFailure = this.#readMemory();
    if (memoryFailure !== 0) return memoryFailure;
    this.processUsedBytes = this.#processesSupported ? this.#readProcessMemory() : undefined;
    return 0;
  }

  #readMemory(): 0 | NvmlCallFailure {
    const view = this.#memoryView;
    const readV2 = this.binding.deviceGetMemoryInfoV2;
    if (this.#useV2 && readV2) {
      view.setUint32(memoryV2Layout.version, memoryV2Version, true);
      const code = readV2(this.handle, this.#memory);
      if (code === NvmlReturn.success) {
        this.totalBytes = view.getBigUint64(memoryV2Layout.total, true);
        this.reservedBytes = view.getBigUint64(memoryV2Layout.reserved, true);
        this.freeBytes = view.getBigUint64(memoryV2Layout.free, true);
        this.usedBytes = view.getBigUint64(memoryV2Layout.used, true);
        return 0;
      }
      if (!isUnsupported(code)) return callFailure(this.binding, "nvmlDeviceGetMemoryInfo_v2", code);
      // Exported but not supported on this device or driver: the v1 query from now on.
      this.#useV2 = false;
    }
    const code = this.binding.deviceGetMemoryInfo(this.handle, this.#memory);
    if (code !== NvmlReturn.success) return callFailure(this.binding, "nvmlDeviceGetMemoryInfo", code);
    this.totalBytes = view.getBigUint64(memoryV1Layout.total, true);
    this.freeBytes = view.getBigUint64(memoryV1Layout.free, true);
    this.usedBytes = view.getBigUint64(memoryV1Layout.used, true);
    this.reservedBytes = undefined;
    return 0;
  }

  /** Sum of this process's entries (one per MIG instance) or undefined when NVML cannot tell. */
  #readProcessMemory(): bigint | undefined {
    const call = this.binding.runningProcesses;
    if (!call) return undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      const capacity = this.#infos.byteLength / processInfoLayout.size;
      this.#countView.setUint32(0, capacity, true);
      const code = call(this.handle, this.#count, this.#infos);
      if (code === NvmlReturn.insufficientSize) {
        const needed = this.#countView.getUint32(0, true);
        // Processes may start between the calls; leave headroom.
        this.#infos = new Uint8Array(Math.max(needed, capacity) * 2 * processInfoLayout.size);
        this.#infosView = new DataView(this.#infos.buffer);
        continue;
      }
      if (code !== NvmlReturn.success) {
        if (isUnsupported(code)) this.#processesSupported = false;
        return undefined;
      }
      const count = this.#countView.getUint32(0, true);
      let total = 0n;
      for (let entry = 0; entry < count; entry++) {
        const offset = entry * processInfoLayout.size;
        if (this.#infosView.getUint32(offset + processInfoLayout.pid, true) !== this.processId) continue;
        const used = this.#infosView.getBigUint64(offset + processInfoLayout.usedGpuMemory, true);
        // NVML_VALUE_NOT_AVAILABLE (e.g. Windows WDDM): unknown, not zero.
        if (used === valueNotAvailable) return undefined;
        total += used;
      }
      return total;
    }
    return undefined;
  }
}

function isUnsupported(code: number): boolean {
  return (
    code === NvmlReturn.notSupported ||
    code === NvmlReturn.functionNotFound ||
    code === NvmlReturn.argumentVersionMismatch ||
    code === NvmlReturn.deprecated
  );
}
