import {
  type CapturedRun,
  type CaptureRunOptions,
  type ProfilableSession,
  writeCapture,
} from "./capture-session-run.js";
import { OrtProfileError } from "./ort-profile-error.js";
import { ReplayClock } from "./replay-clock.js";

/** A transformers.js pipeline (or model) whose ONNX Runtime sessions are reachable. */
export interface PipelineLike {
  readonly model: { readonly sessions: Readonly<Record<string, ProfilableSession<unknown, unknown>>> };
}

export interface ProfilePipelineOptions extends Omit<CaptureRunOptions, "captureRun"> {
  /** Calls before the captured one (profiled by ONNX Runtime, left out of the trace); default 1. */
  warmup?: number | undefined;
}

export interface ProfiledPipelineCall<Result> extends Omit<CapturedRun<unknown>, "outputs"> {
  /** What the pipeline call returned. */
  readonly result: Result;
  /** How many `session.run` calls the captured call made; the trace holds the last one. */
  readonly sessionRuns: number;
}

/**
 * Profiles one call of a transformers.js pipeline (`@huggingface/transformers` in Node, where it
 * runs on onnxruntime-node). Create the pipeline with
 * `session_options: { enableProfiling: true, profileFilePrefix, optimizedModelFilePath }` (from
 * `profilingSessionOptions()`); `call` runs it once. The measured span is the whole call
 * (tokenizing, the model, pooling), with the model's `session.run` and ONNX Runtime's run inside.
 */
export async function profilePipeline<Result>(
  pipe: PipelineLike,
  call: () => Promise<Result>,
  options: ProfilePipelineOptions,
): Promise<ProfiledPipelineCall<Result>> {
  const sessions = Object.entries(pipe.model.sessions);
  const [entry] = sessions;
  if (entry === undefined || sessions.length !== 1) {
    throw new OrtProfileError({
      code: "invalid_option",
      field: "pipe",
      message: `profilePipeline handles a model with one ONNX Runtime session; this one has ${sessions.length} (${sessions.map(([name]) => name).join(", ")})`,
    });
  }
  const [, session] = entry;
  const warmup = options.warmup ?? 1;
  for (let index = 0; index < warmup; index++) await call();

  const clock = new ReplayClock();
  const runs: { startNs: number; endNs: number; feeds: unknown; outputs: unknown }[] = [];
  const originalRun = session.run;
  const timedRun = async (feeds: unknown, ...rest: unknown[]) => {
    const startNs = clock.realNow();
    const outputs = await (originalRun as (...args: unknown[]) => Promise<unknown>).call(
      session,
      feeds,
      ...rest, // spread-ok: the caller's own run() arguments
    );
    runs.push({ startNs, endNs: clock.realNow(), feeds, outputs });
    return outputs;
  };
  const startedAtMs = Date.now();
  const startNs = clock.realNow();
  let result: Result;
  // Own property for the call only: the session's class is left alone.
  Object.defineProperty(session, "run", { value: timedRun, configurable: true, writable: true });
  try {
    result = await call();
  } finally {
    delete (session as { run?: unknown }).run;
    if (session.run !== originalRun)
      Object.defineProperty(session, "run", { value: originalRun, configurable: true, writable: true });
  }
  const endNs = clock.realNow();
  const last = runs[runs.length - 1];
  if (last === undefined) {
    throw new OrtProfileError({
      code: "run_not_found",
      message: "the pipeline call ran no ONNX Runtime session",
    });
  }
  const written = await writeCapture(
    session,
    clock,
    startedAtMs,
    {
      ...options,
      entrypoint: options.entrypoint ?? "transformers.js::pipeline",
      captureRun: warmup + 1,
      tags: { framework: "transformers.js", ...options.tags },
    },
    { name: "session.run", ...last },
    { name: options.name ?? "pipeline", startNs, endNs },
  );
  return { ...written, result, sessionRuns: runs.length };
}
