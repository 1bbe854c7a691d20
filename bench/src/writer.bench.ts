// @cg/writer against the obvious alternatives, each in the same run:
//   op events: session.recordOp vs JSON.stringify + 64 KiB-buffered fs.writeSync, and vs pino;
//   span begin + end: a sync guard vs an OpenTelemetry SDK span;
//   closed capture gate: a no-op span begin/end vs an empty function call.
// Every file sink writes to the null device, so the figures compare serialization and write calls,
// not the disk.
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
import { compare } from "./harness.js";

const run = ProfileRun.training("bench::update", 2, "cuda:0");

const opRecord = {
  opName: "matmul",
  inputs: ["t0", "t1"],
  output: "t2",
  shape: [32, 32],
  dtype: "f32",
  device: "cuda:0",
  durationNs: 1200,
  inputStorageBytes: 8192,
} as const;

// The same event as the baseline writes it (what recordOp produces, incl. resolved storage bytes).
function opEvent(timestamp: number) {
  return {
    kind: "op",
    span_id: "s3",
    op_name: "matmul",
    inputs: ["t0", "t1"],
    output: "t2",
    shape: [32, 32],
    dtype: "f32",
    device: "cuda:0",
    duration_ns: 1200,
    timestamp_ns: timestamp,
    storage_bytes: 4096,
    input_storage_bytes: 8192,
  };
}

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
    close() {
      if (buffer.length > 0) writeSync(fd, buffer);
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

export default async function writerBench(): Promise<void> {
  // --- op events ----------------------------------------------------------------------------------
  const session = TraceSession.open(devNull, run);
  const span = session.beginStepSpan("forward", "forward");
  const baseline = bufferedJsonWriter();
  // The baselines read the same kind of clock for their timestamps, as any real writer must.
  const clock = new MonotonicClock();
  await compare(
    "op events",
    { name: "session.recordOp", fn: () => session.recordOp(span, opRecord) },
    { name: "JSON.stringify + 64 KiB writeSync", fn: () => baseline.write(opEvent(clock.now())) },
    { mode: "speedup", target: 1.5 },
  );

  const logger = pino(
    { base: null, timestamp: false },
    pino.destination({ dest: devNull, sync: true, minLength: 4096 }),
  );
  await compare(
    "op events",
    { name: "session.recordOp", fn: () => session.recordOp(span, opRecord) },
    { name: "pino (sync destination, minLength 4096)", fn: () => logger.info(opEvent(clock.now())) },
    { mode: "speedup", target: 2 },
  );
  baseline.close();
  logger.flush();

  // --- span begin + end ---------------------------------------------------------------------------
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new NoopExporter())] });
  const tracer = provider.getTracer("bench");
  await compare(
    "span begin + end",
    { name: "session.beginSpan().end()", fn: () => session.beginSpan("layer").end() },
    { name: "OpenTelemetry SDK startSpan().end()", fn: () => tracer.startSpan("layer").end() },
    { mode: "speedup", target: 5 },
  );
  span.end();
  session.finish();
  await provider.shutdown();

  // --- closed capture gate ------------------------------------------------------------------------
  const gate = new CaptureGate(run.capture_step, () => TraceSession.open(devNull, run));
  const closed = gate.step(1);
  const empty = (_name: string) => undefined;
  let sink = 0;
  await compare(
    "closed capture gate",
    {
      name: "no-op beginSpan().end()",
      fn: () => {
        closed.beginSpan("layer").end();
        sink++;
      },
    },
    {
      name: "empty function call",
      fn: () => {
        empty("layer");
        sink++;
      },
    },
    { mode: "cost", target: 3 },
  );
  if (sink < 0) console.log(sink);
}
