// `cg-trace convert --to perfetto` on a 1 GiB trace: peak resident set size of the converting child
// process beside a baseline child that only reads the same file in 1 MiB chunks. The trace is
// generated into the OS temp folder (never committed) and deleted at the end, with the output.
// Needs the built binary: `pnpm turbo run build --filter @cg/cli...`.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { sharedWriterShapedTrace } from "./support/writer-shaped-trace.js";

const TARGET_BYTES = Number(process.env.CG_BENCH_CONVERT_BYTES ?? 2 ** 30);
/** What "bounded" means here: the converter must stay below this whatever the input size. */
const BOUND_BYTES = 300e6;

const here = dirname(fileURLToPath(import.meta.url));
const bin = resolve(here, "../../packages/cli/dist/bin.js");

/** Reads the file in 1 MiB chunks and nothing else: the RSS of a Node process that just streams. */
const BASELINE_SCRIPT = `
const fs = require("node:fs");
const fd = fs.openSync(process.argv[1], "r");
const buffer = Buffer.allocUnsafe(1 << 20);
let total = 0;
for (;;) { const n = fs.readSync(fd, buffer, 0, buffer.length, null); if (n === 0) break; total += n; }
fs.closeSync(fd);
process.stdout.write(String(total));
`;

interface ChildRun {
  code: number | null;
  peakRssBytes: number;
  seconds: number;
  stdout: string;
  stderr: string;
  method: string;
}

const TIME = "/usr/bin/time";

/** Runs `node args…`, measuring its peak RSS with `/usr/bin/time -v` or, without it, by polling VmHWM. */
function runMeasured(args: string[]): Promise<ChildRun> {
  const useTime = existsSync(TIME);
  const command = useTime ? TIME : process.execPath;
  const argv = useTime ? ["-v", process.execPath, ...args] : args;
  const started = performance.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, argv, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
    });
    let polledPeak = 0;
    const poll = () => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
        const match = /VmHWM:\s+(\d+) kB/.exec(status);
        if (match) polledPeak = Math.max(polledPeak, Number(match[1]) * 1024);
      } catch {
        // The child has exited.
      }
    };
    const timer = useTime ? undefined : setInterval(poll, 20);
    child.on("error", reject);
    child.on("close", (code) => {
      if (timer !== undefined) clearInterval(timer);
      let peak = polledPeak;
      if (useTime) {
        const match = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
        peak = match ? Number(match[1]) * 1024 : Number.NaN;
      }
      resolvePromise({
        code,
        peakRssBytes: peak,
        seconds: (performance.now() - started) / 1000,
        stdout,
        stderr,
        method: useTime ? "/usr/bin/time -v" : "polling /proc/<pid>/status VmHWM",
      });
    });
  });
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

export default async function cliConvertBench(): Promise<void> {
  if (!existsSync(bin)) {
    throw new Error(`${bin} is missing: run \`pnpm turbo run build --filter @cg/cli...\` first`);
  }
  const directory = mkdtempSync(join(tmpdir(), "cg-cli-convert-bench-"));
  try {
    const output = join(directory, "big.perfetto.json");
    const generatedAt = performance.now();
    const { path: input, bytes } = sharedWriterShapedTrace(TARGET_BYTES);
    console.log(`${mb(bytes)} trace ready in ${((performance.now() - generatedAt) / 1000).toFixed(1)} s`);

    const baseline = await runMeasured(["-e", BASELINE_SCRIPT, input]);
    if (baseline.code !== 0 || Number(baseline.stdout) !== bytes) {
      throw new Error(`baseline reader failed (${baseline.code}): ${baseline.stderr}`);
    }
    const convert = await runMeasured([bin, "convert", input, "--to", "perfetto", "-o", output]);
    if (convert.code !== 0) throw new Error(`cg-trace convert failed (${convert.code}): ${convert.stderr}`);
    const summaryLine = convert.stdout.split("\n")[0] ?? "";
    const ratio = convert.peakRssBytes / baseline.peakRssBytes;
    const met = convert.peakRssBytes <= BOUND_BYTES;
    console.log(
      [
        `cg-trace convert --to perfetto of a ${mb(bytes)} trace (peak RSS by ${convert.method})`,
        `  ${summaryLine.replace(output, "<out>")}`,
        `  output:                 ${mb(statSync(output).size)} in ${convert.seconds.toFixed(1)} s (${(bytes / 1e6 / convert.seconds).toFixed(1)} MB/s)`,
        `  convert peak RSS:       ${mb(convert.peakRssBytes)} (${((convert.peakRssBytes / bytes) * 100).toFixed(1)}% of the input)`,
        `  baseline chunk reader:  ${mb(baseline.peakRssBytes)} in ${baseline.seconds.toFixed(1)} s`,
        `  ratio convert/baseline: ${ratio.toFixed(2)}x`,
        `  bound ${mb(BOUND_BYTES)}: ${met ? "met" : "NOT met"}`,
      ].join("\n"),
    );
    if (!met) process.exitCode = 1;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
