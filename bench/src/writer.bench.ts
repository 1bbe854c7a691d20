// @cg/writer against the obvious alternatives, each in the same run:
//   op events: session.recordOp vs JSON.stringify + 64 KiB-buffered fs.writeSync, and vs pino;
//   span begin + end: a sync guard vs an OpenTelemetry SDK span;
//   closed capture gate: a no-op span begin/end vs an empty function call.
// Every file sink writes to the null device, so the figures compare serialization and write calls,
// not the disk.
//
// Equal work: each iteration builds its argument object afresh, as the caller's code would (the
// writer gets the camelCase record, the baselines the finished event with the same content and a
// fresh clock reading); every writer goes through a 64 KiB buffer and is flushed at the end of each
// timed batch.
//
// Measurement: process CPU time (`process.cpuUsage`, user + system, all threads, so GC work counts)
// of fixed-size batches, subject and baseline interleaved over several rounds with the order
// alternating. On a loaded shared machine wall-clock samplers swing widely because the process is
// descheduled; CPU time does not count the time spent waiting for a core. The figure is the median
// of the per-round ratios; the best (fastest batch of each side) ratio is printed beside it.
import { closeSync, openSync, writeSync } from "node:fs";
import { devNull } from "node:os";
import { MonotonicClock } from "@cg/clock";
import { CaptureGate, ProfileRun, TraceSession } from "@cg/writer";
import {
  BasicTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import pino from "pino";
import { report } from "./harness.js";

const run = ProfileRun.training("bench::update", 2, "cuda:0");
const ROUNDS = 9;

/** Baseline: JSON.stringify per event, appended to a string flushed with writeSync at 64 KiB. */
function bufferedJsonWriter() {
  const fd = openSync(devNull, "w");
  let buffer = "";
  return {
    write(event: object) {
      buffer += JSON.stringify(event) + "\n";
      if (buffer.length >= 65536) {
        writeSync(fd, buffer);
        buffer = "";
      }
    },
    flush() {
      if (buffer.length > 0) writeSync(fd, buffer);
      buffer = "";
    },
    close() {
      this.flush();
      closeSync(fd);
    },
  };
}

class NoopExporter implements SpanExporter {
  export(_spans: ReadableSpan[], resultCallback: (result: { code: number }) => void): void {
    resultCallback({ code: 0 });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

interface Side {
  name: string;
  /** Runs `count` iterations (the loop lives here so each side's call site stays monomorphic). */
  batch: (count: number) => void;
  /** Called after every timed batch, inside the timing (flush the buffer). */
  settle?: () => void;
}

function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

function timeBatch(side: Side, count: number): number {
  const start = cpuMicros();
  side.batch(count);
  side.settle?.();
  return ((cpuMicros() - start) * 1000) / count; // ns per iteration
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Interleaved CPU-time rounds; reports the median per-round ratio through the shared harness. */
function cpuCompare(
  title: string,
  subject: Side,
  baseline: Side,
  options: { mode: "speedup" | "cost"; target: number; iterations: number },
) {
  const { iterations, mode } = options;
  // Warm-up: both sides reach optimized code before anything is timed.
  for (let index = 0; index < 3; index++) {
    timeBatch(subject, iterations >> 2);
    timeBatch(baseline, iterations >> 2);
  }
  const subjectNs: number[] = [];
  const baselineNs: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let subjectTime: number;
    let baselineTime: number;
    if (round % 2 === 0) {
      subjectTime = timeBatch(subject, iterations);
      baselineTime = timeBatch(baseline, iterations);
    } else {
      baselineTime = timeBatch(baseline, iterations);
      subjectTime = timeBatch(subject, iterations);
    }
    subjectNs.push(subjectTime);
    baselineNs.push(baselineTime);
    ratios.push(mode === "speedup" ? baselineTime / subjectTime : subjectTime / baselineTime);
  }
  const bestSubject = Math.min(...subjectNs);
  const bestBaseline = Math.min(...baselineNs);
  const bestRatio = mode === "speedup" ? bestBaseline / bestSubject : bestSubject / bestBaseline;
  const result = report(
    {
      title: `${title} — ${subject.name} vs ${baseline.name}`,
      subjectOpsPerSecond: 1e9 / median(subjectNs),
      baselineOpsPerSecond: 1e9 / median(baselineNs),
      ratio: median(ratios),
    },
    mode,
    options.target,
  );
  console.log(
    `  CPU ns/op median ${median(subjectNs).toFixed(0)} vs ${median(baselineNs).toFixed(0)}; ` +
      `per-round ratios ${Math.min(...ratios).toFixed(2)}x–${Math.max(...ratios).toFixed(2)}x ` +
      `(median of ${ROUNDS}); best-batch ratio ${bestRatio.toFixed(2)}x`,
  );
  return result;
}

export default async function writerBench(): Promise<void> {
  // --- op events ----------------------------------------------------------------------------------
  const session = TraceSession.open(devNull, run);
  const span = session.beginStepSpan("forward", "forward");
  const baseline = bufferedJsonWriter();
  // The baselines read the same kind of clock for their timestamps, as any real writer must.
  const clock = new MonotonicClock();
  const recordOp: Side = {
    name: "session.recordOp",
    batch(count) {
      for (let index = 0; index < count; index++) {
        session.recordOp(span, {
          opName: "matmul",
          inputs: ["t0", "t1"],
          output: "t2",
          shape: [32, 32],
          dtype: "f32",
          device: "cuda:0",
          durationNs: 1200,
          inputStorageBytes: 8192,
        });
      }
    },
    settle: () => session.flush(),
  };
  // The same event as recordOp writes it (incl. the resolved storage bytes), built per call, as a
  // caller of a generic logger would.
  const opEvent = () => ({
    kind: "op",
    span_id: "s3",
    op_name: "matmul",
    inputs: ["t0", "t1"],
    output: "t2",
    shape: [32, 32],
    dtype: "f32",
    device: "cuda:0",
    duration_ns: 1200,
    timestamp_ns: clock.now(),
    storage_bytes: 4096,
    input_storage_bytes: 8192,
  });
  const stringify: Side = {
    name: "JSON.stringify + 64 KiB writeSync",
    batch(count) {
      for (let index = 0; index < count; index++) {
        baseline.write(opEvent());
      }
    },
    settle: () => baseline.flush(),
  };
  cpuCompare("op events", recordOp, stringify, { mode: "speedup", target: 1.5, iterations: 100_000 });

  const destination = pino.destination({ dest: devNull, sync: true, minLength: 4096 });
  const logger = pino({ base: null, timestamp: false }, destination);
  const pinoSide: Side = {
    name: "pino (sync destination, minLength 4096)",
    batch(count) {
      for (let index = 0; index < count; index++) {
        logger.info(opEvent());
      }
    },
    settle: () => destination.flushSync(),
  };
  cpuCompare("op events", recordOp, pinoSide, { mode: "speedup", target: 2, iterations: 100_000 });

  // --- tensor and memory events (the most frequent lines of a training step) --------------------
  const tensorRecord = {
    tensorId: "t2",
    shape: [32, 32],
    dtype: "f32",
    device: "cuda:0",
    category: "activation",
  } as const;
  cpuCompare(
    "tensor events",
    {
      name: "session.recordTensor",
      batch(count) {
        for (let index = 0; index < count; index++) session.recordTensor(span, tensorRecord);
      },
      settle: () => session.flush(),
    },
    {
      name: "JSON.stringify + 64 KiB writeSync",
      batch(count) {
        for (let index = 0; index < count; index++) {
          baseline.write({
            kind: "tensor",
            span_id: "s3",
            tensor_id: "t2",
            shape: [32, 32],
            dtype: "f32",
            device: "cuda:0",
            requires_grad: false,
            storage_bytes: 4096,
            category: "activation",
          });
        }
      },
      settle: () => baseline.flush(),
    },
    { mode: "speedup", target: 1.5, iterations: 100_000 },
  );
  const memoryRecord = {
    tensorId: "t2",
    opName: "matmul",
    device: "cuda:0",
    bytes: 4096,
    shape: [32, 32],
    dtype: "f32",
    category: "activation",
  } as const;
  cpuCompare(
    "memory alloc events",
    {
      name: "session.recordMemoryAlloc",
      batch(count) {
        for (let index = 0; index < count; index++) session.recordMemoryAlloc(span, memoryRecord);
      },
      settle: () => session.flush(),
    },
    {
      name: "JSON.stringify + 64 KiB writeSync",
      batch(count) {
        for (let index = 0; index < count; index++) {
          baseline.write({
            kind: "memory",
            timestamp_ns: clock.now(),
            tensor_id: "t2",
            span_id: "s3",
            op_name: "matmul",
            device: "cuda:0",
            bytes: 4096,
            action: "alloc",
            shape: [32, 32],
            dtype: "f32",
            category: "activation",
          });
        }
      },
      settle: () => baseline.flush(),
    },
    { mode: "speedup", target: 1.5, iterations: 100_000 },
  );
  cpuCompare(
    "device memory samples",
    {
      name: "session.recordDeviceMemory",
      batch(count) {
        for (let index = 0; index < count; index++) {
          session.recordDeviceMemory("cuda:0", 1_073_741_824 + index, 24_696_061_952 - index);
        }
      },
      settle: () => session.flush(),
    },
    {
      name: "JSON.stringify + 64 KiB writeSync",
      batch(count) {
        for (let index = 0; index < count; index++) {
          baseline.write({
            kind: "device_memory",
            timestamp_ns: clock.now(),
            device: "cuda:0",
            used_bytes: 1_073_741_824 + index,
            free_bytes: 24_696_061_952 - index,
          });
        }
      },
      settle: () => baseline.flush(),
    },
    { mode: "speedup", target: 1.5, iterations: 100_000 },
  );
  baseline.close();

  // --- span begin + end ---------------------------------------------------------------------------
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new NoopExporter())] });
  const tracer = provider.getTracer("bench");
  cpuCompare(
    "span begin + end",
    {
      name: "session.beginSpan().end()",
      batch(count) {
        for (let index = 0; index < count; index++) session.beginSpan("layer").end();
      },
      settle: () => session.flush(),
    },
    {
      name: "OpenTelemetry SDK startSpan().end()",
      batch(count) {
        for (let index = 0; index < count; index++) tracer.startSpan("layer").end();
      },
    },
    { mode: "speedup", target: 5, iterations: 50_000 },
  );
  span.end();
  session.finish();
  await provider.shutdown();

  // --- closed capture gate ------------------------------------------------------------------------
  const gate = new CaptureGate(run.capture_step, () => TraceSession.open(devNull, run));
  const closed = gate.step(1);
  const empty = (_name: string) => undefined;
  let sink = 0;
  cpuCompare(
    "closed capture gate",
    {
      name: "no-op beginSpan().end()",
      batch(count) {
        for (let index = 0; index < count; index++) {
          closed.beginSpan("layer").end();
          sink++;
        }
      },
    },
    {
      name: "empty function call",
      batch(count) {
        for (let index = 0; index < count; index++) {
          empty("layer");
          sink++;
        }
      },
    },
    { mode: "cost", target: 3, iterations: 2_000_000 },
  );
  if (sink < 0) console.log(sink);
}
