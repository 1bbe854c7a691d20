// A realistic training capture written with @cg/writer: a transformer-like update with forward,
// backward and optimizer steps, ops, tensors, explicit memory, device samples and gradients.
import { parseTraceText, type TraceDocument } from "@cg/parser";
import { ProfileRun, type SpanRef, TraceSessionCore } from "@cg/writer";

/** A clock that advances by a fixed number of nanoseconds per reading, so traces are reproducible. */
function steppingClock(stepNs: number): { now(): number; advance(ns: number): void } {
  let time = 0;
  return {
    now() {
      time += stepNs;
      return time;
    },
    advance(ns: number) {
      time += ns;
    },
  };
}

export interface DemoOptions {
  layers?: number;
  device?: string;
  /** Scales every op duration (e.g. 1.2 for a slower candidate). */
  slowdown?: number;
  /** Extra activation bytes per layer (to move the peak). */
  extraActivationBytes?: number;
  /** Gradient state of the last layer's bias. */
  lastBiasState?: "present" | "missing" | "zero" | "non_finite";
}

export function demoTraceText(options: DemoOptions = {}): string {
  const layers = options.layers ?? 4;
  const device = options.device ?? "cuda:0";
  const slowdown = options.slowdown ?? 1;
  const clock = steppingClock(250);
  const run = ProfileRun.training("demo::train::update", 3, device)
    .warmupSteps(2)
    .tag("model", "tiny-transformer")
    .tag("physical_batch", "32")
    .tag("precision", "f32")
    .fields();
  const session = TraceSessionCore.inMemory(run, {
    clock,
    runId: "run-1-1754330400000000000",
    timestamp: "2025-08-04T18:00:00.000Z",
  });
  const hidden = 256;
  const batch = 32;
  const activationBytes = batch * hidden * 4 + (options.extraActivationBytes ?? 0);
  const weightBytes = hidden * hidden * 4;
  let tensor = 0;
  const live: string[] = [];

  function op(span: string, name: string, durationNs: number, shape: number[]): string {
    const output = `t${++tensor}`;
    const startNs = session.elapsedNs();
    clock.advance(Math.round(durationNs * slowdown));
    session.recordOp(span, {
      timestampNs: startNs,
      opName: name,
      output,
      shape,
      dtype: "f32",
      device,
      durationNs: Math.round(durationNs * slowdown),
    });
    return output;
  }

  /** A matmul's output activation, allocated in `span` and kept alive until backward frees it. */
  function keepActivation(span: SpanRef, tensorId: string): void {
    session.recordMemoryAlloc(span, {
      tensorId,
      device,
      bytes: activationBytes,
      dtype: "f32",
      category: "activation",
      opName: "matmul",
      shape: [batch, hidden],
    });
    live.push(tensorId);
  }

  const measured = session.beginMeasurement("demo/update-000000000003");
  for (let layer = 0; layer < layers; layer++) {
    session.recordMemoryAlloc(measured, {
      tensorId: `w${layer}`,
      device,
      bytes: weightBytes,
      dtype: "f32",
      category: "parameter",
      shape: [hidden, hidden],
    });
  }
  session.recordDeviceMemory(device, 1_073_741_824, 23_622_320_128);

  const forward = session.beginStepSpan("forward", "forward");
  for (let layer = 0; layer < layers; layer++) {
    const block = session.beginSpan(`block.${layer}`, "module");
    const attention = session.beginSpan(`block.${layer}.attention`, "module");
    op(attention.id, "matmul", 12_000, [batch, hidden]);
    op(attention.id, "softmax", 3_000, [batch, hidden]);
    const output = op(attention.id, "matmul", 9_000, [batch, hidden]);
    session.recordTensor(attention, {
      tensorId: output,
      shape: [batch, hidden],
      dtype: "f32",
      device,
      category: "activation",
    });
    keepActivation(attention, output);
    attention.end();
    const mlp = session.beginSpan(`block.${layer}.mlp`, "module");
    op(mlp.id, "matmul", 15_000, [batch, hidden * 4]);
    op(mlp.id, "gelu", 2_000, [batch, hidden * 4]);
    const mlpOut = op(mlp.id, "matmul", 14_000, [batch, hidden]);
    keepActivation(mlp, mlpOut);
    mlp.end();
    block.end();
  }
  const loss = session.beginSpan("loss", "function");
  op(loss.id, "cross_entropy", 4_000, []);
  loss.end();
  forward.end();
  session.recordDeviceMemory(device, 1_207_959_552, 23_488_102_400);

  const backward = session.beginStepSpan("backward", "backward");
  for (let layer = layers - 1; layer >= 0; layer--) {
    const grad = op(backward.id, "matmul_backward", 26_000, [hidden, hidden]);
    session.recordMemoryAlloc(backward, {
      tensorId: `g${layer}`,
      device,
      bytes: weightBytes,
      dtype: "f32",
      category: "gradient",
      opName: "matmul_backward",
      shape: [hidden, hidden],
    });
    session.recordTensor(backward, {
      tensorId: grad,
      shape: [hidden, hidden],
      dtype: "f32",
      device,
      category: "gradient",
    });
    for (const id of live.splice(-2)) {
      session.recordMemoryFree(backward, {
        tensorId: id,
        device,
        bytes: activationBytes,
        dtype: "f32",
        category: "activation",
      });
    }
  }
  backward.end();

  const optimizer = session.beginStepSpan("adamw", "optimizer");
  for (let layer = 0; layer < layers; layer++) {
    op(optimizer.id, "adamw_update", 5_000, [hidden, hidden]);
    session.recordMemoryAlloc(optimizer, {
      tensorId: `m${layer}`,
      device,
      bytes: weightBytes * 2,
      dtype: "f32",
      category: "optimizer",
      shape: [2, hidden, hidden],
    });
    session.recordMemoryFree(optimizer, {
      tensorId: `g${layer}`,
      device,
      bytes: weightBytes,
      dtype: "f32",
      category: "gradient",
    });
  }
  optimizer.end();
  session.recordDeviceMemory(device, 1_342_177_280, 23_353_884_672);
  for (let layer = 0; layer < layers; layer++) {
    const last = layer === layers - 1;
    session.recordGradient("model", `block.${layer}.weight`, "present", 0.5 + layer / 10);
    session.recordGradient(
      "model",
      `block.${layer}.bias`,
      last ? (options.lastBiasState ?? "zero") : "present",
      last ? 0 : 0.01 * (layer + 1),
    );
  }
  measured.end();
  session.finish();
  return session.sink.text();
}

export function demoTrace(options: DemoOptions = {}): TraceDocument {
  return parseTraceText(demoTraceText(options));
}
