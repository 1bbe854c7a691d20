// Cost of profiling one TensorFlow.js training step: a captured step (kernel, memory and gradient
// hooks, trace written to a file) next to the same step unprofiled, and a gate-closed step next to a
// step that never saw the profiler. A step takes tens of milliseconds, so both sides are measured
// in interleaved pairs (alternating which goes first): drift in machine load hits both equally.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDemoModel, profileTrainStep, TfjsProfiler } from "@cg/tfjs";
import { ProfileRun, TraceSession } from "@cg/writer";
import * as tf from "@tensorflow/tfjs";
import { report } from "./harness.js";
import { PairedTimes } from "./support/paired-times.js";

function timeOnce(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start);
}

/**
 * Runs `pairs` interleaved subject/baseline pairs after `warmup` pairs and returns the mean rates and a
 * robust ratio of the paired times (subject ÷ baseline).
 */
function interleaved(subject: () => void, baseline: () => void, pairs: number, warmup = 5) {
  const times = new PairedTimes();
  for (let pair = -warmup; pair < pairs; pair++) {
    const subjectFirst = pair % 2 === 0;
    const first = timeOnce(subjectFirst ? subject : baseline);
    const second = timeOnce(subjectFirst ? baseline : subject);
    if (pair >= 0) times.add(subjectFirst ? first : second, subjectFirst ? second : first);
  }
  return times.summary();
}

export default async function tfjsBench(): Promise<void> {
  await tf.setBackend("cpu");
  const directory = mkdtempSync(join(tmpdir(), "cg-tfjs-bench-"));
  const demo = createDemoModel({ seed: 1, batchSize: 32, hidden: 64, depth: 4 });
  const step = () => demo.optimizer.minimize(demo.loss, true, demo.variables)?.dispose();

  const profile = await tf.profile(() => {
    step();
    return tf.scalar(0);
  });
  const kernelsPerStep = profile.kernels.filter((kernel) => tf.getKernel(kernel.name, "cpu") != null).length;
  (profile.result as tf.Tensor).dispose();
  console.log(
    `model: dense 32→64×5→8, batch 32, Adam, tfjs CPU backend; ${kernelsPerStep} kernel calls per step`,
  );

  const run = ProfileRun.training("bench::tfjs_step", 1, "cpu");
  // Each capture writes a new file, as a real capture does: truncating and rewriting one path makes
  // ext4 flush the file at close (auto_da_alloc), a cost no single capture pays.
  let captures = 0;
  const profiledStep = () => {
    const session = TraceSession.open(join(directory, `step-${++captures}.jsonl`), run);
    profileTrainStep(session, {
      optimizer: demo.optimizer,
      loss: demo.loss,
      variables: demo.variables,
    }).result.dispose();
    session.finish();
  };
  const profiled = interleaved(profiledStep, step, 40);
  report(
    {
      title: `tfjs training step (${kernelsPerStep} kernels) — profiled step, trace written vs same step unprofiled (paired, trimmed geometric mean)`,
      ...profiled,
    },
    "cost",
    1.5,
  );

  // The same capture into an in-memory session: instrumentation and serialisation without the file system.
  const inMemoryStep = () => {
    const session = TraceSession.inMemory(run);
    profileTrainStep(session, {
      optimizer: demo.optimizer,
      loss: demo.loss,
      variables: demo.variables,
    }).result.dispose();
    session.finish();
  };
  const inMemory = interleaved(inMemoryStep, step, 40);
  report(
    {
      title: `tfjs training step (${kernelsPerStep} kernels) — profiled step, in-memory trace vs same step unprofiled (paired, trimmed geometric mean)`,
      ...inMemory,
    },
    "cost",
    1.5,
  );

  // Gate closed: the profiler's loop step for a step that is not captured.
  const profiler = TfjsProfiler.training({
    captureStep: Number.MAX_SAFE_INTEGER,
    path: join(directory, "never-written.jsonl"),
  });
  const gatedStep = () =>
    profiler.trainStep({ optimizer: demo.optimizer, loss: demo.loss, variables: demo.variables }).dispose();
  const gated = interleaved(gatedStep, step, 120);
  report(
    {
      title:
        "tfjs training step — gate-closed profiler step vs uninstrumented step (paired, trimmed geometric mean)",
      ...gated,
    },
    "cost",
    1.02,
  );
  demo.dispose();
  rmSync(directory, { recursive: true, force: true });
}
