// One nvmlInit_v2 … nvmlShutdown pairing over a bound library. NVML reference-counts init per
// process, so the main thread and a sampler worker each hold their own session safely.

import { NvmlReturn, nameBufferSize, uuidBufferSize } from "./nvml-constants.js";
import { bindNvml, type LibraryAttempt, type NvmlBinding } from "./nvml-library.js";

/** Why NVML cannot be used, as plain data (the main thread turns it into a CudaProbeError). */
export type NvmlFailure =
  | { readonly reason: "library-not-found"; readonly attempts: readonly LibraryAttempt[] }
  | { readonly reason: "symbol-missing"; readonly symbol: string; readonly libraryPath: string }
  | { readonly reason: "no-device"; readonly libraryPath: string }
  | { readonly reason: "closed" }
  | {
      readonly reason: "driver-not-loaded" | "permission-denied" | "nvml-error";
      readonly code: number;
      readonly nvmlMessage: string;
      readonly nvmlFunction: string;
      readonly libraryPath: string;
    };

export type NvmlCallFailure = Extract<NvmlFailure, { code: number }>;

/** Static facts about one device. */
export interface NvmlDeviceInfo {
  readonly index: number;
  readonly name: string;
  readonly uuid: string;
  readonly handle: bigint;
}

export type OpenSessionResult =
  | { readonly ok: true; readonly session: NvmlSession }
  | ({ readonly ok: false } & NvmlFailure);

/** Classifies a failing NVML return code; the message is NVML's own (nvmlErrorString). */
export function callFailure(binding: NvmlBinding, nvmlFunction: string, code: number): NvmlCallFailure {
  const reason =
    code === NvmlReturn.driverNotLoaded
      ? "driver-not-loaded"
      : code === NvmlReturn.noPermission
        ? "permission-denied"
        : "nvml-error";
  return {
    reason,
    code,
    nvmlMessage: safeErrorString(binding, code),
    nvmlFunction,
    libraryPath: binding.libraryPath,
  };
}

function safeErrorString(binding: NvmlBinding, code: number): string {
  try {
    return binding.errorString(code) ?? `NVML error ${code}`;
  } catch {
    return `NVML error ${code}`;
  }
}

export class NvmlSession {
  #open = true;
  readonly #scratch = new Uint8Array(Math.max(nameBufferSize, uuidBufferSize));
  readonly #view = new DataView(this.#scratch.buffer);

  private constructor(
    readonly binding: NvmlBinding,
    readonly deviceCount: number,
  ) {}

  /** Loads the library, initialises NVML and counts devices; never throws. */
  static open(libraryPath?: string): OpenSessionResult {
    const bound = bindNvml(libraryPath);
    if (!bound.ok) {
      const { ok: _ok, ...failure } = bound;
      return { ok: false, ...failure };
    }
    const binding = bound.binding;
    const initCode = binding.init();
    if (initCode !== NvmlReturn.success) {
      // nvmlInit_v2 may report the missing library as its own error; keep the typed reason.
      return { ok: false, ...callFailure(binding, "nvmlInit_v2", initCode) };
    }
    const countBuffer = new Uint8Array(4);
    const countCode = binding.deviceGetCount(countBuffer);
    if (countCode !== NvmlReturn.success) {
      binding.shutdown();
      return { ok: false, ...callFailure(binding, "nvmlDeviceGetCount_v2", countCode) };
    }
    const count = new DataView(countBuffer.buffer).getUint32(0, true);
    if (count === 0) {
      binding.shutdown();
      return { ok: false, reason: "no-device", libraryPath: binding.libraryPath };
    }
    return { ok: true, session: new NvmlSession(binding, count) };
  }

  get isOpen(): boolean {
    return this.#open;
  }

  /** The device handle for an index, or the failure. */
  handle(index: number): bigint | NvmlCallFailure {
    const code = this.binding.deviceGetHandleByIndex(index, this.#scratch);
    if (code !== NvmlReturn.success) return callFailure(this.binding, "nvmlDeviceGetHandleByIndex_v2", code);
    return this.#view.getBigUint64(0, true);
  }

  /** Index, name, UUID and handle of a device. */
  describe(index: number): NvmlDeviceInfo | NvmlCallFailure {
    const handle = this.handle(index);
    if (typeof handle !== "bigint") return handle;
    const name = this.#readString(handle, "nvmlDeviceGetName", this.binding.deviceGetName, nameBufferSize);
    if (typeof name !== "string") return name;
    const uuid = this.#readString(handle, "nvmlDeviceGetUUID", this.binding.deviceGetUuid, uuidBufferSize);
    if (typeof uuid !== "string") return uuid;
    return { index, name, uuid, handle };
  }

  #readString(
    handle: bigint,
    nvmlFunction: string,
    call: (handle: bigint, out: Uint8Array, length: number) => number,
    length: number,
  ): string | NvmlCallFailure {
    this.#scratch.fill(0);
    const code = call(handle, this.#scratch, length);
    if (code !== NvmlReturn.success) return callFailure(this.binding, nvmlFunction, code);
    const end = this.#scratch.indexOf(0);
    return new TextDecoder().decode(this.#scratch.subarray(0, end < 0 ? length : end));
  }

  /** nvmlShutdown once; later calls do nothing. Returns NVML's code (0 when already closed). */
  close(): number {
    if (!this.#open) return NvmlReturn.success;
    this.#open = false;
    try {
      return this.binding.shutdown();
    } catch {
      return NvmlReturn.unknown;
    }
  }
}
