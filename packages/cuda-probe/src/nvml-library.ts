// Loads NVML through koffi on first use and binds the entry points the probe calls. Nothing here
// runs at import: koffi itself is required lazily, so importing the package loads no native code.
// This module and the ones below it avoid @cg/schema so the sampler worker stays light.
import { createRequire } from "node:module";
import type * as Koffi from "koffi";

/** Environment variable naming the NVML shared library to load instead of the default names. */
export const nvmlLibraryEnvironmentVariable = "CG_NVML_LIBRARY";

/** One failed attempt to load a library candidate. */
export interface LibraryAttempt {
  readonly path: string;
  readonly message: string;
}

export type NvmlLoadFailure =
  | { readonly reason: "library-not-found"; readonly attempts: readonly LibraryAttempt[] }
  | { readonly reason: "symbol-missing"; readonly symbol: string; readonly libraryPath: string };

type Call0 = () => number;
type PointerCall = (handle: bigint, out: Uint8Array) => number;
type StringCall = (handle: bigint, out: Uint8Array, length: number) => number;
type ProcessesCall = (handle: bigint, count: Uint8Array, infos: Uint8Array | null) => number;

/** The bound NVML entry points. Pointers are passed as byte buffers and handles as bigints. */
export interface NvmlBinding {
  readonly libraryPath: string;
  readonly init: Call0;
  readonly shutdown: Call0;
  readonly errorString: (code: number) => string;
  readonly deviceGetCount: (count: Uint8Array) => number;
  readonly deviceGetHandleByIndex: (index: number, handle: Uint8Array) => number;
  readonly deviceGetName: StringCall;
  readonly deviceGetUuid: StringCall;
  readonly deviceGetMemoryInfo: PointerCall;
  /** Absent on drivers older than the v2 memory query (R510). */
  readonly deviceGetMemoryInfoV2: PointerCall | undefined;
  /** The newest running-processes query the library exports, if any. */
  readonly runningProcesses: ProcessesCall | undefined;
  readonly runningProcessesFunction: string | undefined;
}

export type BindResult =
  | { readonly ok: true; readonly binding: NvmlBinding }
  | ({ readonly ok: false } & NvmlLoadFailure);

let koffiModule: typeof Koffi | undefined;

/** koffi, required on first use (works from the ESM and the CJS build alike). */
export function loadKoffi(): typeof Koffi {
  koffiModule ??= createRequire(import.meta.url)("koffi") as typeof Koffi;
  return koffiModule;
}

/** Library names to try, in order: an explicit path, else the environment override, else the defaults. */
export function nvmlLibraryCandidates(libraryPath?: string): readonly string[] {
  if (libraryPath !== undefined) return [libraryPath];
  const fromEnvironment = process.env[nvmlLibraryEnvironmentVariable];
  if (fromEnvironment !== undefined && fromEnvironment !== "") return [fromEnvironment];
  if (process.platform === "win32") return ["nvml.dll"];
  return ["libnvidia-ml.so.1", "libnvidia-ml.so"];
}

const bindings = new Map<string, NvmlBinding>();

/** Loads and binds NVML from the first candidate that opens; never throws. */
export function bindNvml(libraryPath?: string): BindResult {
  const attempts: LibraryAttempt[] = [];
  let koffi: typeof Koffi;
  try {
    koffi = loadKoffi();
  } catch (error) {
    return {
      ok: false,
      reason: "library-not-found",
      attempts: [{ path: "koffi", message: messageOf(error) }],
    };
  }
  for (const candidate of nvmlLibraryCandidates(libraryPath)) {
    const cached = bindings.get(candidate);
    if (cached) return { ok: true, binding: cached };
    let library: Koffi.LibraryHandle;
    try {
      library = koffi.load(candidate);
    } catch (error) {
      attempts.push({ path: candidate, message: messageOf(error) });
      continue;
    }
    const result = bindLibrary(library, candidate);
    if (result.ok) bindings.set(candidate, result.binding);
    else library.unload();
    return result;
  }
  return { ok: false, reason: "library-not-found", attempts };
}

class MissingSymbol extends Error {
  constructor(readonly symbol: string) {
    super(`missing symbol ${symbol}`);
  }
}

function bindLibrary(library: Koffi.LibraryHandle, libraryPath: string): BindResult {
  const required = (prototype: string, symbol: string) => {
    try {
      return library.func(prototype);
    } catch {
      throw new MissingSymbol(symbol);
    }
  };
  const optional = (prototype: string) => {
    try {
      return library.func(prototype);
    } catch {
      return undefined;
    }
  };
  try {
    const processesV3 = optional("int nvmlDeviceGetComputeRunningProcesses_v3(void *, void *, void *)");
    const processesV2 = processesV3
      ? undefined
      : optional("int nvmlDeviceGetComputeRunningProcesses_v2(void *, void *, void *)");
    const binding: NvmlBinding = {
      libraryPath,
      init: required("int nvmlInit_v2(void)", "nvmlInit_v2"),
      shutdown: required("int nvmlShutdown(void)", "nvmlShutdown"),
      errorString: required("const char *nvmlErrorString(int)", "nvmlErrorString"),
      deviceGetCount: required("int nvmlDeviceGetCount_v2(void *)", "nvmlDeviceGetCount_v2"),
      deviceGetHandleByIndex: required(
        "int nvmlDeviceGetHandleByIndex_v2(unsigned int, void *)",
        "nvmlDeviceGetHandleByIndex_v2",
      ),
      deviceGetName: required("int nvmlDeviceGetName(void *, void *, unsigned int)", "nvmlDeviceGetName"),
      deviceGetUuid: required("int nvmlDeviceGetUUID(void *, void *, unsigned int)", "nvmlDeviceGetUUID"),
      deviceGetMemoryInfo: required("int nvmlDeviceGetMemoryInfo(void *, void *)", "nvmlDeviceGetMemoryInfo"),
      deviceGetMemoryInfoV2: optional("int nvmlDeviceGetMemoryInfo_v2(void *, void *)"),
      runningProcesses: processesV3 ?? processesV2,
      runningProcessesFunction: processesV3
        ? "nvmlDeviceGetComputeRunningProcesses_v3"
        : processesV2
          ? "nvmlDeviceGetComputeRunningProcesses_v2"
          : undefined,
    };
    return { ok: true, binding };
  } catch (error) {
    if (error instanceof MissingSymbol) {
      return { ok: false, reason: "symbol-missing", symbol: error.symbol, libraryPath };
    }
    throw error;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
