// @cg/cuda-probe against a fake NVML built here with the system C compiler:
// - one sample of one device next to a plain koffi call of a trivial C function (cost ratio);
// - the sampler thread's CPU share at 1 ms and 10 ms intervals (thread CPU time ÷ wall time);
// - main-thread CPU time of a compute loop while the 1 ms sampler runs, next to the same loop without it.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type CudaProbe, openProbe } from "@cg/cuda-probe";
import { compare, report } from "./harness.js";

const fakeSource = join(
  dirname(fileURLToPath(import.meta.url)),
  "../../packages/cuda-probe/test/fixtures/fake-nvml.c",
);

interface Koffi {
  load(path: string): { func(prototype: string): (...args: unknown[]) => number };
}

function buildFake(directory: string): string {
  const output = join(directory, "libfake-nvml.so");
  try {
    execFileSync(process.env.CC ?? "cc", ["-shared", "-fPIC", "-O2", "-o", output, fakeSource], {
      stdio: "pipe",
    });
  } catch (error) {
    throw new Error(`cuda-probe bench needs a C compiler (cc) to build the fake NVML: ${String(error)}`);
  }
  return output;
}

function compute(iterations: number): number {
  let accumulator = 0;
  for (let index = 0; index < iterations; index++) accumulator = (accumulator * 31 + index) % 1_000_003;
  return accumulator;
}

/** CPU time of the calling thread (Linux schedstat, ns): immune to waiting for a core on a busy host. */
function threadCpuMs(): number {
  const onCpu = readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0];
  return Number(onCpu) / 1e6;
}

/** Best main-thread CPU time of `rounds` runs of the compute loop. */
function timeCompute(iterations: number, rounds: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    const start = threadCpuMs();
    compute(iterations);
    best = Math.min(best, threadCpuMs() - start);
  }
  return best;
}

async function samplerFigures(
  probe: CudaProbe,
  intervalMs: number,
  durationMs: number,
  devices?: readonly number[],
): Promise<void> {
  const sampler = probe.startSampler({ intervalMs, capacity: 1 << 16, ...(devices ? { devices } : {}) });
  await sampler.whenReady();
  await new Promise((resolve) => setTimeout(resolve, durationMs));
  const stats = sampler.stop();
  const share = stats.cpuShare === undefined ? "unknown" : `${(stats.cpuShare * 100).toFixed(2)} %`;
  const meanIntervalMs = stats.rounds > 1 ? stats.workerWallNs / stats.rounds / 1e6 : Number.NaN;
  console.log(
    `sampler @ ${intervalMs} ms, ${devices?.length ?? probe.devices.length} device(s): CPU share of one core ${share} (thread CPU ${(stats.workerCpuNs / 1e6).toFixed(1)} ms over ${(stats.workerWallNs / 1e6).toFixed(0)} ms), ` +
      `${stats.rounds} rounds, mean interval ${meanIntervalMs.toFixed(3)} ms, min ${((stats.minIntervalNs ?? 0) / 1e6).toFixed(3)} ms, max ${((stats.maxIntervalNs ?? 0) / 1e6).toFixed(3)} ms, drops ${stats.drops}`,
  );
}

export default async function cudaProbeBench(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "cg-cuda-probe-bench-"));
  try {
    const libraryPath = buildFake(directory);
    // The probe's own koffi (a dependency of @cg/cuda-probe), so both sides pay the same FFI.
    const koffi = createRequire(createRequire(import.meta.url).resolve("@cg/cuda-probe"))("koffi") as Koffi;
    const fake = koffi.load(libraryPath);
    const trivial = fake.func("int fake_nvml_trivial(void)");
    fake.func("void fake_nvml_set_device_count(int)")(1);
    fake.func("void fake_nvml_set_process(unsigned int, unsigned int, unsigned int, unsigned long long)")(
      0,
      0,
      process.pid,
      1n << 30n,
    );

    const opened = openProbe({ libraryPath });
    if (!opened.ok) throw opened.error;
    const probe = opened.probe;
    let sink = 0;
    const noopSink = { recordDeviceMemory: () => sink++ };

    await compare(
      "cuda-probe sample, one device",
      {
        name: "probe.sample() (memory v2 + processes v3 + timestamp)",
        fn: () => (sink += probe.sample().length),
      },
      { name: "koffi call of int trivial(void)", fn: () => (sink += trivial()) },
      { mode: "cost" },
    );
    const lean = openProbe({ libraryPath, processMemory: false });
    if (!lean.ok) throw lean.error;
    await compare(
      "cuda-probe sample, one device, without the per-process query",
      { name: "probe.sample() (memory v2 + timestamp)", fn: () => (sink += lean.probe.sample().length) },
      { name: "koffi call of int trivial(void)", fn: () => (sink += trivial()) },
      { mode: "cost" },
    );
    lean.probe.close();
    await compare(
      "cuda-probe checkpoint, one device",
      { name: "probe.recordInto(sink)", fn: () => (sink += probe.recordInto(noopSink)) },
      { name: "koffi call of int trivial(void)", fn: () => (sink += trivial()) },
      { mode: "cost" },
    );

    await samplerFigures(probe, 10, 2000);
    await samplerFigures(probe, 1, 2000);
    // What the thread costs with nothing to read: waking on schedule (Atomics.wait) and bookkeeping.
    await samplerFigures(probe, 1, 2000, []);

    // Perturbation of the observed program: the same synchronous compute with and without sampling.
    // Warmed up first; the baseline is the better of a run before and a run after the sampled one.
    const iterations = 20_000_000;
    timeCompute(iterations, 3);
    const before = timeCompute(iterations, 5);
    const sampler = probe.startSampler({ intervalMs: 1, capacity: 1 << 16 });
    await sampler.whenReady();
    const withSampler = timeCompute(iterations, 5);
    sampler.stop();
    const without = Math.min(before, timeCompute(iterations, 5));
    report(
      {
        title: "main-thread CPU time of a compute loop — while sampling every 1 ms vs without",
        subjectOpsPerSecond: 1000 / withSampler,
        baselineOpsPerSecond: 1000 / without,
        ratio: withSampler / without,
      },
      "cost",
    );
    probe.close();
    if (sink === -1) console.log(sink);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
