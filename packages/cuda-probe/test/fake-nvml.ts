// Builds the fake NVML (test/fixtures/fake-nvml.c) with the system C compiler and scripts it
// through koffi, the same FFI the probe uses. No compiler is a hard failure, never a skip.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type * as Koffi from "koffi";
import { afterAll, beforeAll } from "vitest";

export type FakeNvmlVariant = "full" | "no-memory-v2" | "no-processes-v3" | "no-processes" | "no-count";

const defines: Record<FakeNvmlVariant, string[]> = {
  full: [],
  "no-memory-v2": ["-DFAKE_NVML_NO_MEMORY_V2"],
  "no-processes-v3": ["-DFAKE_NVML_NO_PROCESSES_V3"],
  "no-processes": ["-DFAKE_NVML_NO_PROCESSES"],
  "no-count": ["-DFAKE_NVML_NO_COUNT"],
};

export const fakeNvmlSource = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "fake-nvml.c");

let buildDirectory: string | undefined;
const built = new Map<FakeNvmlVariant, string>();

/** Compiles a variant once per process and returns the shared library's path. */
export function buildFakeNvml(variant: FakeNvmlVariant = "full"): string {
  const existing = built.get(variant);
  if (existing) return existing;
  buildDirectory ??= mkdtempSync(join(tmpdir(), "cg-fake-nvml-"));
  const output = join(buildDirectory, `libfake-nvml-${variant}.so`);
  compileFakeNvml(variant, output, process.env.CC ?? "cc");
  built.set(variant, output);
  return output;
}

/** Compiles one variant to `output` with `compiler`; no compiler is an error that says so. */
export function compileFakeNvml(variant: FakeNvmlVariant, output: string, compiler: string): void {
  try {
    execFileSync(compiler, ["-shared", "-fPIC", "-O2", ...defines[variant], "-o", output, fakeNvmlSource], {
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new Error(
        `the C compiler '${compiler}' was not found: the cuda-probe tests build a fake NVML from ${fakeNvmlSource}; install a C compiler (e.g. gcc) or set CC`,
      );
    }
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? "";
    throw new Error(`building the fake NVML failed:\n${stderr}`, { cause: error });
  }
}

/** What a test file gets from {@link fakeNvmlForFile}, filled in before its first test. */
export interface FakeNvmlFiles {
  /** The full fake NVML library. */
  libraryPath: string;
  /** An empty scratch folder of the file's own. */
  scratch: string;
}

/**
 * For the calling test file: builds the full fake NVML and makes a scratch folder before its first
 * test, and removes both after its last.
 */
export function fakeNvmlForFile(scratchPrefix: string): FakeNvmlFiles {
  const files: FakeNvmlFiles = { libraryPath: "", scratch: "" };
  beforeAll(() => {
    files.libraryPath = buildFakeNvml("full");
    files.scratch = mkdtempSync(join(tmpdir(), scratchPrefix));
  });
  afterAll(() => {
    removeFakeNvmlBuilds();
    if (files.scratch) rmSync(files.scratch, { recursive: true, force: true });
  });
  return files;
}

/** Removes the compiled libraries (loaded copies stay mapped). */
export function removeFakeNvmlBuilds(): void {
  if (buildDirectory) rmSync(buildDirectory, { recursive: true, force: true });
  buildDirectory = undefined;
  built.clear();
}

/** NVML return codes used in scripts. */
export const nvmlCode = {
  notSupported: 3,
  noPermission: 4,
  driverNotLoaded: 9,
  gpuIsLost: 15,
  unknown: 999,
} as const;

/** The fake's scripting interface, bound through koffi. State is shared by every thread. */
export class FakeNvml {
  readonly #reset: () => void;
  readonly #setDeviceCount: (count: number) => void;
  readonly #setResult: (name: string, code: number) => number;
  readonly #callCount: (name: string) => number | bigint;
  readonly #initRefcount: () => number;
  readonly #setMemory: (index: number, total: bigint, used: bigint, free: bigint, reserved: bigint) => void;
  readonly #setProcess: (index: number, slot: number, pid: number, used: bigint) => void;
  readonly #clearProcesses: (index: number) => void;
  readonly #setDeviceHidden: (index: number, hidden: number) => void;
  readonly trivial: () => number;

  constructor(readonly libraryPath: string) {
    const koffi = createRequire(import.meta.url)("koffi") as typeof Koffi;
    const library = koffi.load(libraryPath);
    this.#reset = library.func("void fake_nvml_reset(void)");
    this.#setDeviceCount = library.func("void fake_nvml_set_device_count(int)");
    this.#setResult = library.func("int fake_nvml_set_result(const char *, int)");
    this.#callCount = library.func("long long fake_nvml_call_count(const char *)");
    this.#initRefcount = library.func("int fake_nvml_init_refcount(void)");
    this.#setMemory = library.func(
      "void fake_nvml_set_memory(unsigned int, unsigned long long, unsigned long long, unsigned long long, unsigned long long)",
    );
    this.#setProcess = library.func(
      "void fake_nvml_set_process(unsigned int, unsigned int, unsigned int, unsigned long long)",
    );
    this.#clearProcesses = library.func("void fake_nvml_clear_processes(unsigned int)");
    this.#setDeviceHidden = library.func("void fake_nvml_set_device_hidden(unsigned int, int)");
    this.trivial = library.func("int fake_nvml_trivial(void)");
  }

  /** Two 16 GiB devices; device i uses (i + 1) GiB with 300 MiB reserved; no processes; no errors. */
  reset(): void {
    this.#reset();
  }

  setDeviceCount(count: number): void {
    this.#setDeviceCount(count);
  }

  /** Scripts the return code of an NVML function by name (0 restores success). */
  setResult(name: string, code: number): void {
    if (this.#setResult(name, code) !== 0) throw new Error(`the fake NVML has no function ${name}`);
  }

  callCount(name: string): number {
    return Number(this.#callCount(name));
  }

  initRefcount(): number {
    return this.#initRefcount();
  }

  setMemory(index: number, memory: { total: bigint; used: bigint; free: bigint; reserved: bigint }): void {
    this.#setMemory(index, memory.total, memory.used, memory.free, memory.reserved);
  }

  setProcess(index: number, slot: number, pid: number, usedBytes: bigint): void {
    this.#setProcess(index, slot, pid, usedBytes);
  }

  clearProcesses(index: number): void {
    this.#clearProcesses(index);
  }

  /** A hidden device answers NVML_ERROR_NO_PERMISSION to handle lookups. */
  setDeviceHidden(index: number, hidden: boolean): void {
    this.#setDeviceHidden(index, hidden ? 1 : 0);
  }
}
