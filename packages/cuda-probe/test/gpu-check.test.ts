// The gpu-check script without a GPU: the clean "no NVIDIA driver" path, and the comparison with
// nvidia-smi against the fake NVML and a stand-in nvidia-smi on PATH.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "./child-process.js";
import { buildFakeNvml, removeFakeNvmlBuilds } from "./fake-nvml.js";

let libraryPath: string;
let scratch: string;

beforeAll(() => {
  libraryPath = buildFakeNvml("full");
  scratch = mkdtempSync(join(tmpdir(), "cg-gpu-check-"));
});

afterAll(() => {
  removeFakeNvmlBuilds();
  rmSync(scratch, { recursive: true, force: true });
});

function standIn(directory: string, name: string, script: string): void {
  const path = join(directory, name);
  writeFileSync(path, `#!/bin/sh\n${script}\n`);
  chmodSync(path, 0o755);
}

function gpuCheck(env: Record<string, string>) {
  const result = spawnSync(process.execPath, [join(packageRoot, "scripts", "gpu-check.mjs")], {
    cwd: packageRoot,
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, output: result.stdout + result.stderr };
}

describe("gpu-check", () => {
  it("without NVIDIA's library prints the typed reason and exits 0", () => {
    const result = gpuCheck({ CG_NVML_LIBRARY: join(scratch, "libnvidia-ml.so.1") });
    expect(result.status).toBe(0);
    expect(result.output).toContain("No usable NVIDIA GPU here: library-not-found");
  });

  it("with NVML installed but the driver not loaded prints that reason and exits 0", () => {
    const result = gpuCheck({ CG_NVML_LIBRARY: libraryPath, FAKE_NVML_INIT_RESULT: "9" });
    expect(result.status).toBe(0);
    expect(result.output).toContain("No usable NVIDIA GPU here: driver-not-loaded");
    expect(result.output).toContain("nvmlInit_v2 failed: Driver Not Loaded (NVML code 9)");
  });

  it("compares the probe with nvidia-smi and reports the per-sample cost", () => {
    const bin = mkdtempSync(join(scratch, "bin-"));
    standIn(bin, "nvidia-smi", `printf '0, 1024, 16384\\n1, 2048, 16384\\n'`);
    standIn(bin, "python3", "exit 1");
    const result = gpuCheck({ CG_NVML_LIBRARY: libraryPath, PATH: `${bin}${delimiter}${process.env.PATH}` });
    expect(result.output).toContain("cuda:0  Fake NVML GPU 0");
    expect(result.output).toContain(
      "nvidia-smi: used 1024  total 16384  → total matches, used differs by 0.0 MiB",
    );
    expect(result.output).toContain(
      "nvidia-smi: used 2048  total 16384  → total matches, used differs by 0.0 MiB",
    );
    expect(result.output).toContain("allocation check skipped");
    expect(result.output).toMatch(/per-sample cost: \d+\.\d+ µs/);
    expect(result.status).toBe(0);
  });

  it("fails when nvidia-smi disagrees about a device's total", () => {
    const bin = mkdtempSync(join(scratch, "bin-"));
    standIn(bin, "nvidia-smi", `printf '0, 1024, 8192\\n1, 2048, 16384\\n'`);
    standIn(bin, "python3", "exit 1");
    const result = gpuCheck({ CG_NVML_LIBRARY: libraryPath, PATH: `${bin}${delimiter}${process.env.PATH}` });
    expect(result.output).toContain("total DIFFERS");
    expect(result.status).toBe(1);
  });
});
