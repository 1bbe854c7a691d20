// `cg-trace convert --to perfetto` on a 1 GiB trace: peak resident set size of the converting child
// process beside a baseline child that only reads the same file in 1 MiB chunks. The trace is
// generated into the OS temp folder (never committed) and deleted at the end, with the output.
// Needs the built binary: `pnpm turbo run build --filter @cg/cli...`.
import { spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { encodeTraceEvent } from "@cg/schema";

const TARGET_BYTES = Number(process.env.CG_BENCH_CONVERT_BYTES ?? 2 ** 30);
/** What "bounded" means here: the converter must stay below this whatever the input size. */
const BOUND_BYTES = 300e6;

const here = dirname(fileURLToPath(import.meta.url));
const bin = resolve(here, "../../packages/cli/dist/bin.js");

const META =
  '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"run-1-0","correlation_id":"bench::convert/update-1","entrypoint":"bench::convert","phase":"train","timestamp":"2025-01-01T00:00:00.000Z","capture_step":1,"warmup_steps":0,"device":"cuda:0","measured_region_device_synchronized":true,"timing_mode":"host","tags":{"precision":"f32"}}';

/**
 * Writes a writer-shaped trace of about `targetBytes`: a root and a measured span, then layer spans
 * (forward/backward/optimizer) with ops, their output tensors, alloc/free pairs (some kept alive
 * for a while), gradient facts and a device-memory checkpoint per layer. Returns the bytes written.
 */
export function generateTrace(path: string, targetBytes: number): number {
  const file = openSync(path, "w");
  let written = 0;
  let buffer: string[] = [];
  let bufferBytes = 0;
  const flush = () => {
    const text = `${buffer.join("\n")}\n`;
    writeSync(file, text);
    written += Buffer.byteLength(text);
    buffer = [];
    bufferBytes = 0;
  };
  const emit = (line: string) => {
    buffer.push(line);
    bufferBytes += line.length + 1;
    if (bufferBytes > 1 << 20) flush();
  };
  emit(META);
  emit(
    '{"kind":"span_start","id":"s1","name":"bench::convert","start_ns":0,"span_kind":"function","measured":false}',
  );
  emit(
    '{"kind":"span_start","id":"s2","parent_id":"s1","name":"bench/update-000000000001","start_ns":1,"span_kind":"function","measured":true}',
  );
  let clock = 10;
  let span = 3;
  let tensor = 0;
  const steps = ["forward", "backward", "optimizer"] as const;
  const categories = { forward: "activation", backward: "gradient", optimizer: "optimizer" } as const;
  while (written + bufferBytes < targetBytes) {
    const id = `s${span}`;
    const step = steps[span % 3]!;
    span += 1;
    const start = clock;
    emit(
      encodeTraceEvent({
        kind: "span_start",
        id,
        parent_id: "s2",
        name: `bench/update-000000000001/layer-${span}`,
        start_ns: start,
        span_kind: "module",
        measured: false,
        step,
      }),
    );
    // Every other output stays alive until the end of its layer span.
    const heldUntilSpanEnd: string[] = [];
    for (let index = 0; index < 40; index++) {
      clock += 100;
      const output = `t${tensor++}`;
      emit(
        encodeTraceEvent({
          kind: "op",
          span_id: id,
          op_name: index % 2 === 0 ? "matmul" : "add",
          inputs: [`t${tensor - 2}`, `t${tensor - 3}`],
          output,
          shape: [64, 128],
          dtype: "f32",
          device: "cuda:0",
          duration_ns: 90,
          timestamp_ns: clock,
          storage_bytes: 32768,
          input_storage_bytes: 65536,
        }),
      );
      emit(
        encodeTraceEvent({
          kind: "tensor",
          span_id: id,
          tensor_id: output,
          shape: [64, 128],
          dtype: "f32",
          device: "cuda:0",
          requires_grad: false,
          storage_bytes: 32768,
          category: categories[step],
        }),
      );
      const memory = {
        kind: "memory" as const,
        timestamp_ns: clock,
        tensor_id: output,
        span_id: id,
        op_name: index % 2 === 0 ? "matmul" : "add",
        device: "cuda:0",
        bytes: 32768,
        shape: [64, 128],
        dtype: "f32",
        category: categories[step],
      };
      emit(encodeTraceEvent({ ...memory, action: "alloc" }));
      if (index % 2 === 0) emit(encodeTraceEvent({ ...memory, timestamp_ns: clock + 50, action: "free" }));
      else heldUntilSpanEnd.push(output);
    }
    clock += 10;
    for (const held of heldUntilSpanEnd) {
      emit(
        encodeTraceEvent({
          kind: "memory",
          timestamp_ns: clock,
          tensor_id: held,
          span_id: id,
          device: "cuda:0",
          bytes: 32768,
          shape: [64, 128],
          dtype: "f32",
          category: categories[step],
          action: "free",
        }),
      );
    }
    emit(
      encodeTraceEvent({
        kind: "gradient",
        event_id: `gradient-${span}`,
        root: "bench",
        key: `layer-${span}.weight`,
        state: "present",
        norm: 0.25,
      }),
    );
    emit(
      encodeTraceEvent({
        kind: "device_memory",
        timestamp_ns: clock,
        device: "cuda:0",
        used_bytes: 1 << 30,
        free_bytes: 2 ** 34,
      }),
    );
    clock += 10;
    emit(encodeTraceEvent({ kind: "span_end", id, duration_ns: clock - start }));
  }
  emit(`{"kind":"span_end","id":"s2","duration_ns":${clock}}`);
  emit(`{"kind":"span_end","id":"s1","duration_ns":${clock + 1}}`);
  flush();
  closeSync(file);
  return written;
}

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
    const input = join(directory, "big.jsonl");
    const output = join(directory, "big.perfetto.json");
    const generatedAt = performance.now();
    const bytes = generateTrace(input, TARGET_BYTES);
    console.log(`generated ${mb(bytes)} trace in ${((performance.now() - generatedAt) / 1000).toFixed(1)} s`);

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
