// A long training capture of about `events` events, written with @cg/writer: many steps of layered
// spans with ops, allocation churn and device samples.
import { ProfileRun, TraceSessionCore } from "@cg/writer";

export function largeTraceText(events: number): string {
  let time = 0;
  const clock = {
    now() {
      time += 137;
      return time;
    },
  };
  const run = ProfileRun.training("bench::train::update", 1, "cuda:0").tag("scale", String(events)).fields();
  const session = TraceSessionCore.inMemory(run, {
    clock,
    runId: "run-large",
    timestamp: "2025-08-04T18:00:00.000Z",
  });
  const measured = session.beginMeasurement("bench/update");
  let written = 4;
  let tensor = 0;
  const live: string[] = [];
  const steps = ["forward", "backward", "optimizer"] as const;
  for (let round = 0; written < events; round++) {
    const step = steps[round % 3]!;
    const stepSpan = session.beginStepSpan(`${step}-${round}`, step);
    for (let layer = 0; layer < 8 && written < events; layer++) {
      const module = session.beginSpan(`layer.${layer}`, "module");
      for (let index = 0; index < 6; index++) {
        const output = `t${++tensor}`;
        session.recordOp(module, {
          opName: index % 2 === 0 ? "matmul" : "add",
          output,
          shape: [64, 64],
          dtype: "f32",
          device: "cuda:0",
          durationNs: 300 + ((index * 37 + layer * 11 + round) % 500),
        });
        session.recordMemoryAlloc(module, {
          tensorId: output,
          device: "cuda:0",
          bytes: 16384,
          dtype: "f32",
          category: step === "forward" ? "activation" : step === "backward" ? "gradient" : "optimizer",
        });
        live.push(output);
        if (live.length > 40 + (round % 17)) {
          session.recordMemoryFree(module, {
            tensorId: live.shift()!,
            device: "cuda:0",
            bytes: 16384,
            dtype: "f32",
          });
          written++;
        }
        written += 2;
      }
      module.end();
      written += 2;
    }
    if (round % 10 === 0) {
      session.recordDeviceMemory("cuda:0", 1_000_000_000 + live.length * 16384, 20_000_000_000);
      written++;
    }
    stepSpan.end();
    written += 2;
  }
  while (live.length > 0)
    session.recordMemoryFree(measured, {
      tensorId: live.shift()!,
      device: "cuda:0",
      bytes: 16384,
      dtype: "f32",
    });
  session.recordGradient("model", "w", "present", 1.5);
  measured.end();
  session.finish();
  return session.sink.text();
}
