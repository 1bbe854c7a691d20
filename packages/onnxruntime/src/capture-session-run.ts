import { readFile, rm } from "node:fs/promises";
import { ProfileRun } from "@cg/writer";
import { deviceForProvider } from "./device-label.js";
import { traceDtype } from "./dtype-label.js";
import { type EmissionSummary, emitOrtRun, type TensorCheckpoint } from "./emit-ort-run.js";
import { findProfileFile } from "./find-profile-file.js";
import { readOnnxGraph } from "./onnx-graph.js";
import type { OrtProfileRun } from "./ort-profile-run.js";
import { OrtTimeline } from "./ort-timeline.js";
import { readOrtProfile } from "./read-ort-profile.js";
import { ReplayClock } from "./replay-clock.js";
import { finishTrace, openTrace } from "./trace-output.js";

/** The part of an ONNX Runtime tensor a trace needs (`ort.Tensor` of onnxruntime-node or -web). */
export interface OrtTensorLike {
  readonly type: string;
  readonly dims: readonly number[];
}

/** The part of an `InferenceSession` a capture uses; onnxruntime-node's and transformers.js's sessions fit. */
export interface ProfilableSession<
  Feeds = Record<string, OrtTensorLike>,
  Outputs = Record<string, OrtTensorLike>,
> {
  run(feeds: Feeds, options?: never): Promise<Outputs>;
  endProfiling(): void;
}

export interface CaptureRunOptions {
  /** The `profileFilePrefix` the session was created with (see `profilingSessionOptions`). */
  profileFilePrefix: string;
  /** Where the trace goes; absent: kept in memory and returned as `traceText`. */
  out?: string | undefined;
  /** The optimized model ONNX Runtime saved (`optimizedModelFilePath`): gives ops their tensor names and the parameters. */
  optimizedModelPath?: string | undefined;
  /** Name of the measured span; default `session.run`. */
  name?: string | undefined;
  /** Entrypoint of the trace's run metadata; default `onnxruntime::session.run`. */
  entrypoint?: string | undefined;
  /** The number of this run among the session's runs (1-based), for the metadata; default 1. */
  captureRun?: number | undefined;
  /** Extra `meta.tags`. */
  tags?: Readonly<Record<string, string>> | undefined;
  /** Keep ONNX Runtime's profile file instead of removing it. */
  keepProfile?: boolean | undefined;
}

export interface CapturedRun<Outputs> {
  /** What `session.run` returned. */
  readonly outputs: Outputs;
  /** The trace file, when `out` was given. */
  readonly tracePath: string | undefined;
  /** The trace, when it was kept in memory. */
  readonly traceText: string | undefined;
  readonly summary: EmissionSummary;
  /** The run as ONNX Runtime profiled it. */
  readonly profile: OrtProfileRun;
  /** The profile file, when kept. */
  readonly profilePath: string | undefined;
  /**
   * `session.run` as measured on the trace clock, minus ONNX Runtime's `model_run`: the JavaScript
   * side of the call. ONNX Runtime's clock is placed so `model_run` sits in the middle of it, so
   * its instants are right to within half of this.
   */
  readonly alignmentSlackNs: number;
}

/**
 * Runs `session.run(feeds)` once and writes that run as a trace: the session must have been created
 * with profiling on; the call ends the session's profiling (ONNX Runtime cannot restart it), reads
 * the profile's last run — this one — and removes the profile file.
 */
export async function captureSessionRun<Feeds, Outputs>(
  session: ProfilableSession<Feeds, Outputs>,
  feeds: Feeds,
  options: CaptureRunOptions,
  runOptions?: unknown,
): Promise<CapturedRun<Outputs>> {
  const clock = new ReplayClock();
  const startedAtMs = Date.now();
  const startNs = clock.realNow();
  const outputs =
    runOptions === undefined ? await session.run(feeds) : await session.run(feeds, runOptions as never);
  const endNs = clock.realNow();
  const call = { name: options.name ?? "session.run", startNs, endNs, feeds, outputs };
  const written = await writeCapture(session, clock, startedAtMs, options, call, undefined);
  return { ...written, outputs };
}

/** A `session.run` call as timed on the capture clock. */
export interface TimedRunCall {
  readonly name: string;
  readonly startNs: number;
  readonly endNs: number;
  readonly feeds: unknown;
  readonly outputs: unknown;
}

/**
 * Ends the session's profiling, reads the profile's last run (the one `run` timed), and writes the
 * trace: `model_run` is placed in the middle of `run`; `outer`, when given, is the measured span
 * around it (a pipeline call), otherwise `run` is.
 */
export async function writeCapture(
  session: { endProfiling(): void },
  clock: ReplayClock,
  startedAtMs: number,
  options: CaptureRunOptions,
  run: TimedRunCall,
  outer: { readonly name: string; readonly startNs: number; readonly endNs: number } | undefined,
): Promise<Omit<CapturedRun<unknown>, "outputs">> {
  session.endProfiling();
  const profilePath = await findProfileFile(options.profileFilePrefix, startedAtMs);
  let profile: OrtProfileRun;
  try {
    profile = await readOrtProfile(profilePath);
  } finally {
    if (options.keepProfile !== true) await rm(profilePath, { force: true });
  }
  const graph =
    options.optimizedModelPath === undefined
      ? undefined
      : readOnnxGraph(await readFile(options.optimizedModelPath));

  const modelRunNs = Number(profile.modelRun.durationUs * 1000n);
  const slackNs = Math.max(0, run.endNs - run.startNs - modelRunNs);
  const timeline = new OrtTimeline(
    profile,
    profile.modelRun.startUs,
    BigInt(run.startNs + Math.floor(slackNs / 2)),
    profilePath,
  );
  const device = deviceForProvider(profile.nodes[0]?.provider ?? "CPUExecutionProvider");
  let metadata = ProfileRun.inference(
    options.entrypoint ?? "onnxruntime::session.run",
    options.captureRun ?? 1,
    device,
  )
    .tag("source", "onnxruntime")
    .tag("ort_profile_runs", String(profile.runCount))
    .tag("ort_clock_alignment_slack_ns", String(slackNs));
  if (profile.outOfWindow.length > 0) {
    metadata = metadata.tag("ort_out_of_window_node_events", String(profile.outOfWindow.length));
  }
  if (profile.unassignedNodes > 0) {
    metadata = metadata.tag("ort_unassigned_node_events", String(profile.unassignedNodes));
  }
  for (const [key, value] of Object.entries(options.tags ?? {})) metadata = metadata.tag(key, value);
  const trace = openTrace(options.out, metadata, clock);
  const runSpan = { name: run.name, startNs: run.startNs, endNs: run.endNs };
  const summary = emitOrtRun({
    trace,
    clock,
    run: profile,
    timeline,
    measured: outer ?? runSpan,
    call: outer === undefined ? undefined : runSpan,
    graph,
    tensors: [...tensorCheckpoints(run.feeds, device), ...tensorCheckpoints(run.outputs, device)],
  });
  return {
    ...finishTrace(trace),
    summary,
    profile,
    profilePath: options.keepProfile === true ? profilePath : undefined,
    alignmentSlackNs: slackNs,
  };
}

function tensorCheckpoints(values: unknown, device: string): TensorCheckpoint[] {
  const checkpoints: TensorCheckpoint[] = [];
  if (typeof values !== "object" || values === null) return checkpoints;
  for (const [name, value] of Object.entries(values)) {
    if (!isTensorLike(value)) continue;
    checkpoints.push({ name, dtype: traceDtype(value.type), shape: value.dims, device });
  }
  return checkpoints;
}

function isTensorLike(value: unknown): value is OrtTensorLike {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as OrtTensorLike).type === "string" &&
    Array.isArray((value as OrtTensorLike).dims)
  );
}
