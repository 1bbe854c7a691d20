// @cg/writer against what people actually run, each contender alone in a fresh child process,
// interleaved over rounds (see process-harness.ts), the event loop turned every 1,000 operations:
//   records: session.recordOp / recordTensor / recordMemoryAlloc / recordDeviceMemory vs
//     JSON.stringify + a 64 KiB-buffered writeSync, vs pino (current version, its documented fast
//     settings: asynchronous destination, minLength 4096, and the same synchronously), and vs a hand-written template string
//     (the floor: no escaping, no checks);
//   span begin + end: a session span vs an OpenTelemetry SDK span with BatchSpanProcessor and with
//     SimpleSpanProcessor (no-op exporter, so OTel serialises and writes nothing);
//   closed capture gate: a no-op span begin/end and recordOp vs an empty function call, on a call
//     site that never saw a real session and on one that has just run the captured step with one;
//     and recordOp behind an `isRecording` check (what the writer's README gives for hot loops).
// Every writer writes to a real file in the OS temp folder (deleted at the end); batches end with a
// flush (for pino: until its pending asynchronous writes are done) inside the timing.
//
// Equal work: each iteration builds its argument afresh, as the caller's code would (the writer gets
// the camelCase record, the baselines the finished event with the same content and a fresh clock
// reading); OTel spans have a parent span, as the session's spans do.
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MonotonicClock } from "@cg/clock";
import { CaptureGate, ProfileRun, type SpanHandle, type TraceRecorder, TraceSession } from "@cg/writer";
import { context, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import pino from "pino";
import { type ContenderFactory, compareInProcesses } from "./process-harness.js";

const run = ProfileRun.training("bench::update", 2, "cuda:0");

function outputPath(input: Readonly<Record<string, string>>, name: string): string {
  return join(input.directory as string, `${name}-${process.pid}.jsonl`);
}

/** Baseline: JSON.stringify (or a template) per event, appended to a string flushed with writeSync at 64 KiB. */
function bufferedWriter(path: string) {
  const fd = openSync(path, "w");
  let buffer = "";
  return {
    write(line: string) {
      buffer += line;
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
      unlinkSync(path);
    },
  };
}

/** A session writing to its own file, with a step span open as in a real step. */
function openSession(input: Readonly<Record<string, string>>, name: string) {
  const path = outputPath(input, name);
  const session = TraceSession.open(path, run);
  const span = session.beginStepSpan("forward", "forward");
  return {
    session,
    span,
    settle: () => session.flush(),
    close: () => {
      span.end();
      session.finish();
      unlinkSync(path);
    },
  };
}

/** The record an op call builds, afresh per call (a tiny function: V8 always inlines it). */
const matmulRecord = () => ({
  opName: "matmul",
  inputs: ["t0", "t1"],
  output: "t2",
  shape: [32, 32],
  dtype: "f32",
  device: "cuda:0",
  durationNs: 1200,
  inputStorageBytes: 8192,
});

/** Ops as instrumented code records them; also the call site of the closed-gate figures. */
function layerOps(recorder: TraceRecorder, span: SpanHandle, count: number): void {
  for (let index = 0; index < count; index++) recorder.recordOp(span, matmulRecord());
}
/**
 * The same ops behind the check the writer's README gives for hot loops: `isRecording` first, so a
 * closed step builds no record at all.
 */
function layerOpsChecked(recorder: TraceRecorder, span: SpanHandle, count: number): void {
  for (let index = 0; index < count; index++) {
    if (recorder.isRecording) recorder.recordOp(span, matmulRecord());
  }
}
const clock = new MonotonicClock();
/** The event recordOp writes (incl. the resolved storage bytes), built per call as a logger's caller would. */
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

function stringifyContender(name: string, event: () => object): ContenderFactory {
  return (input) => {
    const writer = bufferedWriter(outputPath(input, name));
    return {
      run(count) {
        for (let index = 0; index < count; index++) writer.write(JSON.stringify(event()) + "\n");
      },
      settle: () => writer.flush(),
      close: () => writer.close(),
    };
  };
}

/**
 * pino at its current version with the settings its docs give for speed ("Asynchronous Logging":
 * `minLength: 4096`, `sync: false`), and the same buffer written synchronously; no pid, hostname or
 * time fields, since the event carries its own timestamp.
 */
function pinoContender(name: string, sync: boolean): ContenderFactory {
  return (input) => {
    const path = outputPath(input, name);
    const destination = pino.destination({ dest: path, minLength: 4096, sync });
    const logger = pino({ base: null, timestamp: false }, destination);
    return {
      run(count) {
        for (let index = 0; index < count; index++) logger.info(opEvent());
      },
      settle: () =>
        sync
          ? destination.flushSync()
          : new Promise<void>((resolve, reject) =>
              destination.flush((error) => (error ? reject(error) : resolve())),
            ),
      close: () => {
        destination.flushSync();
        destination.end();
        unlinkSync(path);
      },
    };
  };
}

const records: Record<string, ContenderFactory> = {
  "session.recordOp": (input) => {
    const { session, span, settle, close } = openSession(input, "record-op");
    return { run: (count) => layerOps(session, span, count), settle, close };
  },
  "op JSON.stringify": stringifyContender("op-stringify", opEvent),
  "op pino": pinoContender("op-pino", false),
  "op pino sync": pinoContender("op-pino-sync", true),
  "op template string": (input) => {
    // The floor: a hand-written template with the values spliced in, no escaping, no checks.
    const writer = bufferedWriter(outputPath(input, "op-template"));
    const inputs = ["t0", "t1"];
    const shape = [32, 32];
    return {
      run(count) {
        for (let index = 0; index < count; index++) {
          writer.write(
            `{"kind":"op","span_id":"s3","op_name":"${"matmul"}","inputs":["${inputs[0]}","${inputs[1]}"],"output":"${"t2"}","shape":[${shape[0]},${shape[1]}],"dtype":"f32","device":"cuda:0","duration_ns":${1200},"timestamp_ns":${clock.now()},"storage_bytes":4096,"input_storage_bytes":${8192}}\n`,
          );
        }
      },
      settle: () => writer.flush(),
      close: () => writer.close(),
    };
  },
  "session.recordTensor": (input) => {
    const { session, span, settle, close } = openSession(input, "record-tensor");
    return {
      run(count) {
        for (let index = 0; index < count; index++) {
          session.recordTensor(span, {
            tensorId: "t2",
            shape: [32, 32],
            dtype: "f32",
            device: "cuda:0",
            category: "activation",
          });
        }
      },
      settle,
      close,
    };
  },
  "tensor JSON.stringify": stringifyContender("tensor-stringify", () => ({
    kind: "tensor",
    span_id: "s3",
    tensor_id: "t2",
    shape: [32, 32],
    dtype: "f32",
    device: "cuda:0",
    requires_grad: false,
    storage_bytes: 4096,
    category: "activation",
  })),
  "session.recordMemoryAlloc": (input) => {
    const { session, span, settle, close } = openSession(input, "record-memory");
    return {
      run(count) {
        for (let index = 0; index < count; index++) {
          session.recordMemoryAlloc(span, {
            tensorId: "t2",
            opName: "matmul",
            device: "cuda:0",
            bytes: 4096,
            shape: [32, 32],
            dtype: "f32",
            category: "activation",
          });
        }
      },
      settle,
      close,
    };
  },
  "memory JSON.stringify": stringifyContender("memory-stringify", () => ({
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
  })),
  "session.recordDeviceMemory": (input) => {
    const { session, settle, close } = openSession(input, "record-device-memory");
    let sample = 0;
    return {
      run(count) {
        for (let index = 0; index < count; index++, sample++) {
          session.recordDeviceMemory("cuda:0", 1_073_741_824 + sample, 24_696_061_952 - sample);
        }
      },
      settle,
      close,
    };
  },
  "device_memory JSON.stringify": (input) => {
    let sample = 0;
    return stringifyContender("device-memory-stringify", () => ({
      kind: "device_memory",
      timestamp_ns: clock.now(),
      device: "cuda:0",
      used_bytes: 1_073_741_824 + sample,
      free_bytes: 24_696_061_952 - sample++,
    }))(input);
  },
};

class NoopExporter implements SpanExporter {
  export(_spans: ReadableSpan[], resultCallback: (result: { code: number }) => void): void {
    resultCallback({ code: 0 });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

function otelContender(processor: () => SpanProcessor): ContenderFactory {
  return () => {
    const provider = new BasicTracerProvider({ spanProcessors: [processor()] });
    const tracer = provider.getTracer("bench");
    // A parent span, as the session's spans have (the step span): children share its trace id.
    const step = tracer.startSpan("forward");
    const parent = trace.setSpan(context.active(), step);
    return {
      run(count) {
        for (let index = 0; index < count; index++) tracer.startSpan("layer", undefined, parent).end();
      },
      settle: () => provider.forceFlush(),
      close: async () => {
        step.end();
        await provider.shutdown();
      },
    };
  };
}

const spans: Record<string, ContenderFactory> = {
  "session span": (input) => {
    const { session, settle, close } = openSession(input, "span");
    return {
      run(count) {
        for (let index = 0; index < count; index++) session.beginSpan("layer").end();
      },
      settle,
      close,
    };
  },
  "OTel BatchSpanProcessor": otelContender(() => new BatchSpanProcessor(new NoopExporter())),
  "OTel SimpleSpanProcessor": otelContender(() => new SimpleSpanProcessor(new NoopExporter())),
};

// --- closed capture gate -------------------------------------------------------------------------
// The instrumented code of a training step: the same functions run with the real session during
// the captured step and with the no-op session on every other step.
function layerSpans(recorder: TraceRecorder, count: number): void {
  for (let index = 0; index < count; index++) recorder.beginSpan("layer").end();
}
const emptyCall = (_name: string): void => {};
function layerEmpty(count: number): void {
  for (let index = 0; index < count; index++) emptyCall("layer");
}

/** Steps 1 and 2 closed, step 3 captured (a real session, `opsInCapturedStep` spans and ops), then closed again. */
function closedGate(input: Readonly<Record<string, string>>, afterCapture: boolean, ops = layerOps) {
  const path = outputPath(input, "gate");
  const gate = new CaptureGate(3, () => TraceSession.open(path, run));
  let step = 1;
  if (afterCapture) {
    // The captured step, in slices with the event loop turning between them like any other step.
    for (; step <= 3; step++) {
      const recorder = gate.step(step);
      const span = recorder.beginStepSpan("forward", "forward");
      for (let slice = 0; slice < 5; slice++) {
        layerSpans(recorder, 1000);
        ops(recorder, span, 1000);
      }
      span.end();
      if (gate.isCapturing) recorder.finish();
    }
    unlinkSync(path);
  }
  const recorder = gate.step(step);
  if (recorder.isRecording) throw new Error("the gate should be closed");
  return { recorder, span: recorder.beginStepSpan("forward", "forward") };
}

const gate: Record<string, ContenderFactory> = {
  "closed span, fresh site": (input) => {
    const { recorder } = closedGate(input, false);
    return { run: (count) => layerSpans(recorder, count) };
  },
  "closed span, site ran capture": (input) => {
    const { recorder } = closedGate(input, true);
    return { run: (count) => layerSpans(recorder, count) };
  },
  "closed recordOp, fresh site": (input) => {
    const { recorder, span } = closedGate(input, false);
    return { run: (count) => layerOps(recorder, span, count) };
  },
  "closed recordOp, site ran capture": (input) => {
    const { recorder, span } = closedGate(input, true);
    return { run: (count) => layerOps(recorder, span, count) };
  },
  "closed recordOp checked, site ran capture": (input) => {
    const { recorder, span } = closedGate(input, true, layerOpsChecked);
    return { run: (count) => layerOpsChecked(recorder, span, count) };
  },
  "empty function call": () => ({ run: (count) => layerEmpty(count) }),
};

export const groups = { records, spans, gate } satisfies Record<string, Record<string, ContenderFactory>>;

export default async function writerBench(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "cg-writer-bench-"));
  const input = { directory };
  try {
    await compareInProcesses({
      title: "records written to a file",
      module: import.meta.url,
      group: "records",
      contenders: Object.keys(records),
      operations: 50_000,
      input,
      comparisons: [
        { subject: "session.recordOp", baseline: "op JSON.stringify", mode: "speedup", target: 1.5 },
        { subject: "session.recordOp", baseline: "op pino", mode: "speedup", target: 2 },
        { subject: "session.recordOp", baseline: "op pino sync", mode: "speedup", target: 2 },
        { subject: "session.recordOp", baseline: "op template string", mode: "speedup", note: "the floor" },
        { subject: "session.recordTensor", baseline: "tensor JSON.stringify", mode: "speedup", target: 1.5 },
        {
          subject: "session.recordMemoryAlloc",
          baseline: "memory JSON.stringify",
          mode: "speedup",
          target: 1.5,
        },
        {
          subject: "session.recordDeviceMemory",
          baseline: "device_memory JSON.stringify",
          mode: "speedup",
          target: 1.5,
        },
      ],
    });
    await compareInProcesses({
      title: "span begin + end",
      module: import.meta.url,
      group: "spans",
      contenders: Object.keys(spans),
      operations: 50_000,
      input,
      comparisons: [
        { subject: "session span", baseline: "OTel SimpleSpanProcessor", mode: "speedup", target: 5 },
        { subject: "session span", baseline: "OTel BatchSpanProcessor", mode: "speedup", target: 3 },
      ],
    });
    await compareInProcesses({
      title: "closed capture gate",
      module: import.meta.url,
      group: "gate",
      contenders: Object.keys(gate),
      operations: 200_000,
      timing: "segments",
      input,
      comparisons: [
        {
          subject: "closed span, site ran capture",
          baseline: "empty function call",
          mode: "cost",
          target: 3,
        },
        { subject: "closed span, fresh site", baseline: "empty function call", mode: "cost", target: 3 },
        {
          subject: "closed recordOp, site ran capture",
          baseline: "empty function call",
          mode: "cost",
          target: 3,
        },
        { subject: "closed recordOp, fresh site", baseline: "empty function call", mode: "cost", target: 3 },
        {
          subject: "closed recordOp checked, site ran capture",
          baseline: "empty function call",
          mode: "cost",
          target: 3,
          note: "`if (trace.isRecording)` before building the record",
        },
      ],
    });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
