// Bundled for the page by browser-entries.test.ts: writes a trace in memory with the browser entry
// of @cg/writer and reads it back with @cg/schema and @cg/parser/core (text, bytes and a web
// stream), all in the page.
import { MonotonicClock } from "@cg/clock";
import { storageBytes } from "@cg/memory";
import { parseTrace, parseTraceText, readTraceEvents, summarizeStream } from "@cg/parser/core";
import { decodeTraceLine } from "@cg/schema";
import { CaptureGate, ProfileRun, TraceSessionCore } from "@cg/writer/core";

export async function writeAndRead() {
  const run = ProfileRun.training("browser::update", 2, "webgpu:0").tag("where", "chromium");
  const gate = new CaptureGate(run.capture_step, () =>
    TraceSessionCore.inMemory(run, { clock: new MonotonicClock() }),
  );
  for (let step = 1; step <= 3; step++) {
    const trace = gate.step(step);
    const measured = trace.beginMeasurement(`update-${step}`);
    trace.span(
      "forward",
      (forward) => {
        for (let index = 0; index < 100; index++) {
          trace.recordOp(forward, {
            opName: `matmul-${index}`,
            inputs: ["x", "w"],
            output: `y${index}`,
            shape: [4, index + 1],
            dtype: "f32",
            device: "webgpu:0",
            durationNs: 1000 + index,
          });
        }
        trace.recordMemoryAlloc(forward, { tensorId: "y0", device: "webgpu:0", bytes: 16, dtype: "f32" });
      },
      { step: "forward" },
    );
    measured.end();
    if (gate.isCapturing) trace.finish();
  }
  const session = gate.session as TraceSessionCore<import("@cg/writer/core").MemorySink>;
  const text = session.sink.text();
  const kinds = session.sink.lines().map((line) => {
    const decoded = decodeTraceLine(line);
    if (!decoded.ok) throw new Error(decoded.error.message);
    return decoded.event.kind;
  });
  const document = parseTraceText(text);
  const bytes = new TextEncoder().encode(text);
  const fromBytes = await parseTrace(bytes);
  // A web stream in small pieces, so lines are framed across chunk boundaries.
  const streamed: string[] = [];
  for await (const record of readTraceEvents(chunkedStream(bytes, 97))) streamed.push(record.event.kind);
  const summary = await summarizeStream(new Blob([bytes]).stream());
  let pathRefusal = "";
  await parseTrace("trace.jsonl").catch((error: Error) => {
    pathRefusal = `${error.name}: ${error.message}`;
  });
  return {
    kinds,
    ops: document.ops.length,
    spans: document.spans.length,
    entrypoint: document.run.entrypoint,
    derivedStorage: storageBytes([4, 1], "f32"),
    firstOpStorage: document.ops[0]?.storage_bytes,
    bytesOps: fromBytes.ops.length,
    streamedKinds: streamed.join(",") === kinds.join(","),
    summaryOps: summary.summary.op_count,
    summaryTrusted: summary.health.trusted,
    pathRefusal,
    hasProcess: typeof (globalThis as { process?: unknown }).process !== "undefined",
  };
}

function chunkedStream(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + size));
      offset += size;
    },
  });
}
