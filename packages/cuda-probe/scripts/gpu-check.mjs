#!/usr/bin/env node
// Checks @cg/cuda-probe on a real NVIDIA machine:
//   pnpm --filter @cg/cuda-probe gpu-check
// Lists devices, compares the probe with nvidia-smi, allocates GPU memory from a child process when
// python3 with torch is present and shows the probe seeing it, and prints the per-sample cost.
// Without an NVIDIA driver it prints why the probe is unavailable and exits 0.
// Exit status 1 only when the probe and nvidia-smi disagree about a device's total memory.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const MiB = 1024 * 1024;

function toMiB(bytes) {
  return bytes === undefined ? "unknown" : (Number(bytes) / MiB).toFixed(1);
}

async function loadProbeModule() {
  const entry = join(packageRoot, "dist", "index.js");
  if (!existsSync(entry) || !existsSync(join(packageRoot, "dist", "sampler-worker.js"))) {
    console.log("building @cg/cuda-probe and its dependencies first …");
    execFileSync("pnpm", ["turbo", "run", "build", "--filter", "@cg/cuda-probe..."], {
      cwd: join(packageRoot, "..", ".."),
      stdio: "inherit",
    });
  }
  return import(pathToFileURL(entry).href);
}

function nvidiaSmi() {
  const result = spawnSync(
    "nvidia-smi",
    ["--query-gpu=index,memory.used,memory.total", "--format=csv,noheader,nounits"],
    { encoding: "utf8" },
  );
  if (result.error || result.status !== 0) return undefined;
  const rows = new Map();
  for (const line of result.stdout.trim().split("\n")) {
    const [index, used, total] = line.split(",").map((cell) => Number(cell.trim()));
    if (Number.isInteger(index)) rows.set(index, { usedMiB: used, totalMiB: total });
  }
  return rows;
}

function torchAvailable() {
  const result = spawnSync(
    "python3",
    ["-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 3)"],
    {
      encoding: "utf8",
    },
  );
  return !result.error && result.status === 0;
}

/** Starts a python3 child that allocates `bytes` on cuda:0 and holds it until stdin closes. */
function allocateInChild(bytes) {
  const code = [
    "import sys, torch",
    `block = torch.empty(${bytes}, dtype=torch.uint8, device='cuda:0')`,
    "torch.cuda.synchronize()",
    "print('allocated', flush=True)",
    "sys.stdin.read()",
  ].join("\n");
  const child = spawn("python3", ["-c", code], { stdio: ["pipe", "pipe", "inherit"] });
  const ready = new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      if (String(chunk).includes("allocated")) resolve();
    });
    child.on("exit", (status) => reject(new Error(`allocating child exited with ${status}`)));
  });
  return { child, ready };
}

function sleep(milliseconds) {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

const { openProbe } = await loadProbeModule();
const opened = openProbe();
if (!opened.ok) {
  console.log(`No usable NVIDIA GPU here: ${opened.reason}`);
  console.log(`  ${opened.error.message}`);
  console.log(
    "The probe reported this as a typed unavailability without throwing; nothing to check. (exit 0)",
  );
  process.exit(0);
}
const probe = opened.probe;
let failed = false;

console.log(`NVML: ${probe.libraryPath}`);
for (const device of probe.devices) {
  console.log(
    `${device.label}  ${device.name}  ${device.uuid}  total ${toMiB(device.totalBytes)} MiB  (memory query ${device.memoryQuery})`,
  );
}

const samples = probe.sample();
const smi = nvidiaSmi();
console.log("\nreadings (MiB):");
for (const sample of samples) {
  const inUse = Number(sample.totalBytes) - Number(sample.freeBytes);
  let line = `${sample.device}: used ${toMiB(sample.usedBytes)}  reserved ${toMiB(sample.reservedBytes)}  free ${toMiB(sample.freeBytes)}  total ${toMiB(sample.totalBytes)}  total−free ${toMiB(inUse)}  this process ${toMiB(sample.processUsedBytes)}`;
  const row = smi?.get(sample.index);
  if (row) {
    const totalMatches = Math.abs(Number(sample.totalBytes) / MiB - row.totalMiB) < 1;
    // nvidia-smi's "used" is NVML's used (v2: without reserved); memory may move between the reads.
    const usedDifference = Number(sample.usedBytes) / MiB - row.usedMiB;
    line += `\n    nvidia-smi: used ${row.usedMiB}  total ${row.totalMiB}  → total ${totalMatches ? "matches" : "DIFFERS"}, used differs by ${usedDifference.toFixed(1)} MiB`;
    if (!totalMatches) failed = true;
  }
  console.log(line);
}
if (!smi) console.log("(nvidia-smi not found or failed: no comparison)");
const own = samples.find((sample) => sample.processUsedBytes !== undefined);
if (own) {
  console.log(
    `this process holds ${toMiB(own.processUsedBytes)} MiB on ${own.device} (0 expected: NVML needs no CUDA context)`,
  );
}

if (torchAvailable()) {
  const bytes = 1024 * MiB;
  console.log(`\nallocating ${toMiB(bytes)} MiB on cuda:0 from a python3/torch child process …`);
  const sampler = probe.startSampler({ intervalMs: 10, devices: [0] });
  await sampler.whenReady();
  const before = probe.sample()[0];
  const { child, ready } = allocateInChild(bytes);
  try {
    await ready;
    await sleep(100);
    const during = probe.sample()[0];
    const grew = Number(during.usedBytes) - Number(before.usedBytes);
    console.log(
      `cuda:0 used ${toMiB(before.usedBytes)} → ${toMiB(during.usedBytes)} MiB (+${toMiB(grew)}; ≥ ${toMiB(bytes)} expected with the child's context)`,
    );
    if (grew < bytes) {
      console.log("  the probe did NOT see the allocation");
      failed = true;
    }
  } finally {
    child.stdin.end();
    await new Promise((resolve) => child.on("exit", resolve));
  }
  await sleep(100);
  const series = sampler.drain();
  const stats = sampler.stop();
  const peak = series.reduce((highest, sample) => Math.max(highest, Number(sample.usedBytes)), 0);
  console.log(
    `sampler @ 10 ms saw ${series.length} readings, peak used ${toMiB(peak)} MiB, after release ${toMiB(probe.sample()[0].usedBytes)} MiB; CPU share ${stats.cpuShare === undefined ? "unknown" : `${(stats.cpuShare * 100).toFixed(2)} %`}`,
  );
} else {
  console.log("\n(python3 with CUDA-enabled torch not found: allocation check skipped)");
}

const iterations = 2000;
const start = process.hrtime.bigint();
for (let index = 0; index < iterations; index++) probe.sample();
const perSampleUs = Number(process.hrtime.bigint() - start) / iterations / 1000;
console.log(
  `\nper-sample cost: ${perSampleUs.toFixed(2)} µs for all ${probe.devices.length} device(s) (${(perSampleUs / probe.devices.length).toFixed(2)} µs per device)`,
);
probe.close();
console.log(failed ? "\nCHECK FAILED" : "\ncheck passed");
process.exit(failed ? 1 : 0);
