// The gpu-check script without a GPU: the clean "no NVIDIA driver" path, and the comparison with
// nvidia-smi against the fake NVML and a stand-in nvidia-smi on PATH.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "./child-process.js";
import { fakeNvmlForFile } from "./fake-nvml.js";

const nvml = fakeNvmlForFile("cg-gpu-check-");

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

/** gpu-check on the fake NVML, with a stand-in nvidia-smi that prints `smiOutput` (and no python3). */
function gpuCheckBesideNvidiaSmi(smiOutput: string) {
  const bin = mkdtempSync(join(nvml.scratch, "bin-"));
  standIn(bin, "nvidia-smi", `printf '${smiOutput}'`);
  standIn(bin, "python3", "exit 1");
  return gpuCheck({ CG_NVML_LIBRARY: nvml.libraryPath, PATH: `${bin}${delimiter}${process.env.PATH}` });
}

describe("gpu-check", () => {
  it("without NVIDIA's library prints the typed reason and exits 0", () => {
    const result = gpuCheck({ CG_NVML_LIBRARY: join(nvml.scratch, "libnvidia-ml.so.1") });
    expect(result.status).toBe(0);
    expect(result.output).toContain("No usable NVIDIA GPU here: library-not-found");
  });

  it("with NVML installed but the driver not loaded prints that reason and exits 0", () => {
    const result = gpuCheck({ CG_NVML_LIBRARY: nvml.libraryPath, FAKE_NVML_INIT_RESULT: "9" });
    expect(result.status).toBe(0);
    expect(result.output).toContain("No usable NVIDIA GPU here: driver-not-loaded");
    expect(result.output).toContain("nvmlInit_v2 failed: Driver Not Loaded (NVML code 9)");
  });

  it("compares the probe with nvidia-smi and reports the per-sample cost", () => {
    const result = gpuCheckBesideNvidiaSmi("0, 1024, 16384\\n1, 2048, 16384\\n");
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
    const result = gpuCheckBesideNvidiaSmi("0, 1024, 8192\\n1, 2048, 16384\\n");
    expect(result.output).toContain("total DIFFERS");
    expect(result.status).toBe(1);
  });
});
