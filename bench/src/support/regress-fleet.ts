// Synthetic fleets for `regress`: one small writer-made trace per nightly run of one training step,
// every op time noisy, with an optional change planted in the newest runs (one op slowed, one span
// allocating more). The writer's clock is driven by the generator, so durations are what it says.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ProfileRun, TraceSession } from "@cg/writer";

export interface RegressFleetOptions {
  runs: number;
  seed: number;
  /** Coefficient of variation of every op's duration (default 0.03). */
  noise?: number;
  /** Multiplies one op's durations in the newest `runs` runs. */
  slowOp?: { op: string; factor: number; runs: number };
  /** Adds an allocation of this many bytes, live at the peak, in the newest `runs` runs. */
  extraBytes?: { bytes: number; runs: number };
  /** Written as the `build` tag; default the run's index. */
  buildTag?: (index: number) => string;
}

export const FLEET_OPS = [
  { step: "forward", op: "matmul", ns: 400_000 },
  { step: "forward", op: "relu", ns: 60_000 },
  { step: "forward", op: "softmax", ns: 90_000 },
  { step: "backward", op: "matmul_grad", ns: 700_000 },
  { step: "backward", op: "relu_grad", ns: 70_000 },
  { step: "optimizer", op: "adam", ns: 150_000 },
] as const;

/** Deterministic standard normal values (Box-Muller over a seeded 32-bit generator). */
function normals(seed: number): () => number {
  let state = seed >>> 0 || 1;
  const uniform = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 0.5) / 2 ** 32;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** Writes the fleet's traces into `dir` (run-0000.jsonl, …, oldest first); returns their paths. */
export function writeRegressFleet(dir: string, options: RegressFleetOptions): string[] {
  mkdirSync(dir, { recursive: true });
  const normal = normals(options.seed);
  const noise = options.noise ?? 0.03;
  const files: string[] = [];
  for (let index = 0; index < options.runs; index++) {
    const newest = options.runs - index;
    let now = 0;
    const clock = { now: () => now };
    const run = ProfileRun.training("fleet::train_step", 2, "cuda:0").tag(
      "build",
      options.buildTag?.(index) ?? String(index),
    );
    const file = join(dir, `run-${String(index).padStart(4, "0")}.jsonl`);
    // One run a day, so the timestamps order the runs.
    const timestamp = new Date(Date.UTC(2026, 0, 1) + index * 86_400_000).toISOString();
    const session = TraceSession.open(file, run, { clock, runId: `run-${index}`, timestamp });
    {
      using _measured = session.beginMeasurement("fleet/update-2");
      now += 1_000;
      for (const step of ["forward", "backward", "optimizer"] as const) {
        using span = session.beginStepSpan(step, step, "function");
        for (const spec of FLEET_OPS.filter((entry) => entry.step === step)) {
          const slowOp = options.slowOp;
          const slow = slowOp !== undefined && slowOp.op === spec.op && newest <= slowOp.runs;
          const ns = Math.max(1, Math.round(spec.ns * (1 + noise * normal()) * (slow ? slowOp.factor : 1)));
          session.recordOp(span, {
            opName: spec.op,
            shape: [64, 64],
            dtype: "f32",
            device: "cuda:0",
            durationNs: ns,
            timestampNs: now,
          });
          now += ns;
        }
        // Activations of the forward pass are live until the optimizer step frees them.
        if (step === "forward") {
          session.recordMemoryAlloc(span, {
            tensorId: "act",
            device: "cuda:0",
            bytes: 4_194_304,
            dtype: "f32",
            category: "activation",
            timestampNs: now,
          });
          if (options.extraBytes !== undefined && newest <= options.extraBytes.runs) {
            session.recordMemoryAlloc(span, {
              tensorId: "cache",
              device: "cuda:0",
              bytes: options.extraBytes.bytes,
              dtype: "f32",
              category: "activation",
              timestampNs: now,
            });
          }
        }
        if (step === "optimizer") {
          session.recordMemoryFree(span, {
            tensorId: "act",
            device: "cuda:0",
            bytes: 4_194_304,
            dtype: "f32",
            category: "activation",
            timestampNs: now,
          });
          if (options.extraBytes !== undefined && newest <= options.extraBytes.runs) {
            session.recordMemoryFree(span, {
              tensorId: "cache",
              device: "cuda:0",
              bytes: options.extraBytes.bytes,
              dtype: "f32",
              category: "activation",
              timestampNs: now,
            });
          }
        }
        now += 500;
      }
    }
    session.finish();
    files.push(file);
  }
  return files;
}
