// Cost of profiling one ONNX Runtime inference. ONNX Runtime's profiler is switched on when a
// session is created and stays on until endProfiling(), never per run. So profileInference runs a
// model's warm-ups in a session without the profiler (default `warmupOn: "bare-session"`), then
// creates the profiling session, runs it once (its own warm-up) and captures the next run.
// Figures, each against a bare run or the same work done bare:
//   (1) a warm-up run as the adapter runs it by default (a session without the profiler, created
//       as profileInference creates it) — the goal is ≤ 1.05x;
//   (2) a run in a profiling session (`warmupOn: "profiling-session"`, or a session you created
//       with the profiler on) — what ONNX Runtime's profiler costs every run it sees;
//   (3) the captured run itself (run, end profiling, read the profile, write the trace);
//   (4) all of profileInference(model, feeds, { warmup: 10 }) next to creating a bare session and
//       running it 11 times.
// Runs take tens of µs to ms, so both sides are measured in interleaved pairs (alternating which
// goes first): drift in machine load hits both equally.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  captureSessionRun,
  mlpModel,
  profileInference,
  profilingSessionOptions,
  textEncoderModel,
} from "@cg/onnxruntime";
import * as ort from "onnxruntime-node";
import { report } from "./harness.js";
import { PairedTimes } from "./support/paired-times.js";

async function timeOnce(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start);
}

/** Interleaved subject/baseline pairs; a trimmed geometric mean of the paired ratios. */
async function interleaved(
  subject: () => Promise<unknown>,
  baseline: () => Promise<unknown>,
  pairs: number,
  warmup = 5,
  setup: () => Promise<void> = async () => {},
) {
  const times = new PairedTimes();
  for (let pair = -warmup; pair < pairs; pair++) {
    await setup();
    const subjectFirst = pair % 2 === 0;
    const first = await timeOnce(subjectFirst ? subject : baseline);
    const second = await timeOnce(subjectFirst ? baseline : subject);
    if (pair >= 0) times.add(subjectFirst ? first : second, subjectFirst ? second : first);
  }
  return times.summary();
}

interface Workload {
  readonly label: string;
  readonly model: Uint8Array;
  readonly feeds: Record<string, ort.Tensor>;
}

function workloads(): Workload[] {
  const float = (dims: number[]) => {
    const values = new Float32Array(dims.reduce((product, dim) => product * dim, 1));
    for (let index = 0; index < values.length; index++) values[index] = Math.sin(index);
    return new ort.Tensor("float32", values, dims);
  };
  const ids = new BigInt64Array(32 * 64);
  for (let index = 0; index < ids.length; index++) ids[index] = BigInt(4 + (index % 20));
  return [
    { label: "MLP 16→32→4, batch 3 (5 nodes)", model: mlpModel(), feeds: { x: float([3, 16]) } },
    { label: "MLP 256→1024→16, batch 64", model: mlpModel(256, 1024, 16), feeds: { x: float([64, 256]) } },
    {
      label: "text encoder, batch 32 × 64 tokens",
      model: textEncoderModel(),
      feeds: {
        input_ids: new ort.Tensor("int64", ids, [32, 64]),
        attention_mask: new ort.Tensor("int64", new BigInt64Array(32 * 64).fill(1n), [32, 64]),
      },
    },
  ];
}

export default async function onnxruntimeBench(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "cg-onnxruntime-bench-"));
  console.log(`onnxruntime-node ${ort.env.versions.node}, CPU execution provider, sequential executor`);
  for (const workload of workloads()) {
    const bare = await ort.InferenceSession.create(workload.model);
    const profiling = profilingSessionOptions(directory);
    const profiled = await ort.InferenceSession.create(workload.model, {
      enableProfiling: true,
      profileFilePrefix: profiling.profileFilePrefix,
    });
    const adapterWarmup = await ort.InferenceSession.create(workload.model, { logSeverityLevel: 3 });
    const warmDefault = await interleaved(
      () => adapterWarmup.run(workload.feeds),
      () => bare.run(workload.feeds),
      400,
      20,
    );
    report(
      {
        title: `${workload.label} — warm-up run as profileInference runs it (session without the profiler) vs a bare run (paired, trimmed geometric mean)`,
        ...warmDefault,
      },
      "cost",
      1.05,
    );
    await adapterWarmup.release();

    const warm = await interleaved(
      () => profiled.run(workload.feeds),
      () => bare.run(workload.feeds),
      400,
      20,
    );
    report(
      {
        title: `${workload.label} — run in a profiling session (warmupOn: "profiling-session") vs a bare run (paired, trimmed geometric mean)`,
        ...warm,
      },
      "cost",
    );
    profiled.endProfiling();
    await profiled.release();
    rmSync(profiling.directory, { recursive: true, force: true });

    // The captured run: each capture needs a session whose profiler is still on, made (and warmed
    // up once) outside the timed pair.
    let session: ort.InferenceSession | undefined;
    let options = profilingSessionOptions(directory);
    const setup = async () => {
      // The previous capture's session and files go outside the timed pair.
      await session?.release();
      rmSync(options.directory, { recursive: true, force: true });
      options = profilingSessionOptions(directory);
      session = await ort.InferenceSession.create(workload.model, {
        enableProfiling: true,
        profileFilePrefix: options.profileFilePrefix,
      });
      await session.run(workload.feeds);
    };
    const capture = async () => {
      if (session === undefined) return;
      await captureSessionRun(session, workload.feeds, {
        profileFilePrefix: options.profileFilePrefix,
        out: join(options.directory, "trace.jsonl"),
      });
    };
    const captured = await interleaved(capture, () => bare.run(workload.feeds), 30, 3, setup);
    await session?.release();
    session = undefined;
    report(
      {
        title: `${workload.label} — captured run (run, end profiling, read the profile, write the trace) vs a bare run (paired, trimmed geometric mean)`,
        ...captured,
      },
      "cost",
    );
    await bare.release();

    const whole = await interleaved(
      () => profileInference(workload.model, workload.feeds, { warmup: 10 }),
      async () => {
        const session = await ort.InferenceSession.create(workload.model, { logSeverityLevel: 3 });
        for (let run = 0; run < 11; run++) await session.run(workload.feeds);
        await session.release();
      },
      12,
      2,
    );
    report(
      {
        title: `${workload.label} — profileInference (10 warm-ups, capture, trace in memory) vs create a bare session and run it 11 times (paired, trimmed geometric mean)`,
        ...whole,
      },
      "cost",
    );
  }
  rmSync(directory, { recursive: true, force: true });
}
