// Writer-made training steps for the comparison goals: a measured update of `layers` layers, each
// with a forward span (matmul, add, gelu, layer norm; an activation kept until its backward, a
// scratch buffer), a backward span (the gradient ops; a gradient kept to the end) and an optimizer
// span (adam per layer with a scratch buffer). Every op time and every span's own time carries
// noise (per op, and one factor for the whole run), scratch sizes too. The peak is reached in the
// last backward span, when every gradient is live. A pair plants at most one slowed op and one
// memory change: a backward span allocating more (a larger gradient, live at the peak), or the
// peak moved into the optimizer (a large scratch buffer there).
import { ProfileRun, TraceSession } from "@cg/trace";

/** A deterministic generator (mulberry32) and normal deviates (Box–Muller). */
export function random(seed: number): {
  next: () => number;
  normal: () => number;
  pick: (n: number) => number;
} {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  return { next, normal, pick: (n) => Math.floor(next() * n) };
}

export interface Noise {
  /** Relative standard deviation of each op's time and each span's own time (default 0.03). */
  perOp: number;
  /** Relative standard deviation of one factor applied to the whole run (default 0.01). */
  run: number;
  /** Relative standard deviation of scratch buffer sizes (default 0.005). */
  bytes: number;
}

export interface Plant {
  /** Slow the `op` of layer `layer`'s `step` span by `factor`. */
  slowOp?: { layer: number; step: "forward" | "backward"; op: string; factor: number };
  /** Layer `layer`'s backward allocates a gradient `factor` times larger (kept: live at the peak). */
  allocateMore?: { layer: number; factor: number };
  /** The optimizer allocates a scratch buffer of `bytes`, larger than the forward peak's headroom. */
  moveOptimizerPeak?: { bytes: number };
}

export const LAYER_OPS = {
  forward: [
    ["matmul", 90_000],
    ["add", 8_000],
    ["gelu", 14_000],
    ["layer_norm", 11_000],
  ],
  backward: [
    ["matmul_grad", 160_000],
    ["gelu_grad", 18_000],
    ["layer_norm_grad", 15_000],
  ],
} as const;

const ACTIVATION_BYTES = 4 << 20;
const PARAMETER_BYTES = 8 << 20;

export interface StepOptions {
  layers: number;
  seed: number;
  noise?: Partial<Noise>;
  plant?: Plant;
  /** The update number in the measured span's name (paths then differ by a number only). */
  update?: number;
  device?: string;
}

/** One writer-made trace of a training step, as JSONL text. */
export function trainingStep(options: StepOptions): string {
  const noise: Noise = { perOp: 0.03, run: 0.01, bytes: 0.005, ...options.noise };
  const rng = random(options.seed);
  const runFactor = 1 + noise.run * rng.normal();
  let now = 0;
  const clock = { now: () => now };
  const jitter = (ns: number): number =>
    Math.max(1, Math.round(ns * runFactor * (1 + noise.perOp * rng.normal())));
  const scratch = (bytes: number): number =>
    Math.max(1, Math.round(bytes * (1 + noise.bytes * rng.normal())));
  const device = options.device ?? "cuda:0";
  const update = options.update ?? 7;
  const session = TraceSession.inMemory(ProfileRun.training("synthetic::train", update, device), {
    clock,
    runId: `run-${options.seed}`,
    timestamp: "2026-01-01T00:00:00.000Z",
  });
  const plant = options.plant ?? {};
  const memory = (
    span: Parameters<typeof session.recordMemoryAlloc>[0],
    action: "alloc" | "free",
    tensorId: string,
    bytes: number,
    category: "activation" | "gradient" | "optimizer" | "parameter",
    opName: string,
  ) => {
    const record = { tensorId, device, bytes, dtype: "f32", category, timestampNs: now, opName };
    if (action === "alloc") session.recordMemoryAlloc(span, record);
    else session.recordMemoryFree(span, record);
    now += 1;
  };
  const root = session.rootSpanId;
  for (let layer = 0; layer < options.layers; layer++) {
    memory(root, "alloc", `weight.${layer}`, PARAMETER_BYTES, "parameter", "init");
  }
  const measured = session.beginMeasurement(`model/update-${String(update).padStart(12, "0")}`);
  const ops = (
    span: ReturnType<typeof session.beginStepSpan>,
    layer: number,
    step: "forward" | "backward",
  ) => {
    for (const [name, base] of LAYER_OPS[step]) {
      const slowed = plant.slowOp;
      const factor =
        slowed !== undefined && slowed.layer === layer && slowed.step === step && slowed.op === name
          ? slowed.factor
          : 1;
      const durationNs = jitter(base * factor);
      session.recordOp(span, {
        opName: name,
        shape: [32, 1024],
        dtype: "f32",
        device,
        durationNs,
        timestampNs: now,
      });
      now += durationNs + jitter(500);
    }
  };
  const gradient = (layer: number): number =>
    plant.allocateMore?.layer === layer
      ? Math.round(PARAMETER_BYTES * plant.allocateMore.factor)
      : PARAMETER_BYTES;
  for (let layer = 0; layer < options.layers; layer++) {
    const span = session.beginStepSpan(`layer${layer}/forward`, "forward");
    now += jitter(2_000);
    memory(span, "alloc", `act.${layer}`, ACTIVATION_BYTES, "activation", "matmul");
    const bytes = scratch(ACTIVATION_BYTES / 2);
    memory(span, "alloc", `scratch.f${layer}`, bytes, "activation", "gelu");
    ops(span, layer, "forward");
    memory(span, "free", `scratch.f${layer}`, bytes, "activation", "gelu");
    now += jitter(2_000);
    span.end();
  }
  for (let layer = options.layers - 1; layer >= 0; layer--) {
    const span = session.beginStepSpan(`layer${layer}/backward`, "backward");
    now += jitter(2_000);
    memory(span, "alloc", `grad.${layer}`, gradient(layer), "gradient", "matmul_grad");
    ops(span, layer, "backward");
    memory(span, "free", `act.${layer}`, ACTIVATION_BYTES, "activation", "matmul_grad");
    now += jitter(2_000);
    span.end();
  }
  const optimizer = session.beginStepSpan("optimizer", "optimizer");
  now += jitter(3_000);
  const extra = plant.moveOptimizerPeak?.bytes;
  if (extra !== undefined)
    memory(optimizer, "alloc", "optimizer.scratch", extra, "optimizer", "adam_flatten");
  for (let layer = 0; layer < options.layers; layer++) {
    const bytes = scratch(PARAMETER_BYTES / 4);
    memory(optimizer, "alloc", `adam.tmp${layer}`, bytes, "optimizer", "adam");
    const durationNs = jitter(40_000);
    session.recordOp(optimizer, {
      opName: "adam",
      shape: [1024, 1024],
      dtype: "f32",
      device,
      durationNs,
      timestampNs: now,
    });
    now += durationNs + jitter(500);
    memory(optimizer, "free", `adam.tmp${layer}`, bytes, "optimizer", "adam");
  }
  if (extra !== undefined) memory(optimizer, "free", "optimizer.scratch", extra, "optimizer", "adam_flatten");
  now += jitter(3_000);
  optimizer.end();
  measured.end();
  session.finish();
  return session.sink.text();
}

/** The peak without plants: parameters, every gradient and the first layer's activation. */
export function unplantedPeakBytes(layers: number): number {
  return layers * 2 * PARAMETER_BYTES + ACTIVATION_BYTES;
}

/** The optimizer's live bytes without plants, at its scratch buffer: what a moved peak adds to. */
export function optimizerLiveBytes(layers: number): number {
  return layers * 2 * PARAMETER_BYTES + PARAMETER_BYTES / 4;
}
