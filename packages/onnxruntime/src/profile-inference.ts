import { existsSync } from "node:fs";
import { copyFile, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { InferenceSession } from "onnxruntime-node";
import {
  type CapturedRun,
  type CaptureRunOptions,
  captureSessionRun,
  type ProfilableSession,
} from "./capture-session-run.js";
import { OrtProfileError } from "./ort-profile-error.js";
import { profilingSessionOptions } from "./profiling-session-options.js";

export interface ProfileInferenceOptions extends Omit<CaptureRunOptions, "profileFilePrefix" | "captureRun"> {
  /** Runs before the captured one, left out of the trace; default 1. */
  warmup?: number | undefined;
  /**
   * Where a model's warm-up runs go. `bare-session` (default): a session without the profiler, released
   * before the profiling session is created, which gets one profiled warm-up run of its own (its
   * arena and kernel state) before the captured run. `profiling-session`: every warm-up run in the
   * profiling session — ONNX Runtime's profiler cannot be switched on per run, so each pays its cost.
   */
  warmupOn?: "bare-session" | "profiling-session" | undefined;
  /** Options for the session created from a model (ignored for a session passed in). */
  sessionOptions?: InferenceSession.SessionOptions | undefined;
  /** `RunOptions` of every run. */
  runOptions?: InferenceSession.RunOptions | undefined;
  /**
   * For a session passed in: the `profileFilePrefix` it was created with. For a model, a kept
   * profile (`keepProfile`) is moved beside the trace as `<out without .jsonl>.ort-profile.json`.
   */
  profileFilePrefix?: string | undefined;
  /**
   * Save the optimized model beside the profile to name every op's input and output tensors and
   * the parameters (default true for a model; costs one write of the model at session creation).
   */
  tensorNames?: boolean | undefined;
}

export interface ProfiledInference<Outputs> extends CapturedRun<Outputs> {
  /** Host nanoseconds of each warm-up `session.run` without the profiler. */
  readonly warmupNs: readonly number[];
  /** Host nanoseconds of each warm-up `session.run` in the profiling session (profiled by ONNX Runtime). */
  readonly profiledWarmupNs: readonly number[];
}

type Model = string | Uint8Array;

/**
 * Profiles one `session.run`. Given a model (path or bytes): runs `warmup` runs in a bare session,
 * creates a session with ONNX Runtime's profiler on, runs it once more (its own warm-up), captures
 * the next run, writes the trace and releases everything. Given a session created with
 * `profilingSessionOptions()`: runs the warm-ups and the captured run on it and ends its profiling.
 * ONNX Runtime's profile files are removed.
 */
export function profileInference(
  model: Model,
  feeds: InferenceSession.FeedsType,
  options?: ProfileInferenceOptions,
): Promise<ProfiledInference<InferenceSession.ReturnType>>;
export function profileInference<Feeds, Outputs>(
  session: ProfilableSession<Feeds, Outputs>,
  feeds: Feeds,
  options: ProfileInferenceOptions & { profileFilePrefix: string },
): Promise<ProfiledInference<Outputs>>;
export async function profileInference<Feeds, Outputs>(
  sessionOrModel: Model | ProfilableSession<Feeds, Outputs>,
  feeds: Feeds,
  options: ProfileInferenceOptions = {},
): Promise<ProfiledInference<Outputs>> {
  const warmup = options.warmup ?? 1;
  if (!Number.isSafeInteger(warmup) || warmup < 0) {
    throw new OrtProfileError({
      code: "invalid_option",
      field: "warmup",
      message: `warmup must be a whole number ≥ 0, got ${String(warmup)}`,
    });
  }
  if (typeof sessionOrModel !== "string" && !(sessionOrModel instanceof Uint8Array)) {
    const profileFilePrefix = options.profileFilePrefix;
    if (profileFilePrefix === undefined) {
      throw new OrtProfileError({
        code: "invalid_option",
        field: "profileFilePrefix",
        message:
          "profileInference(session, …) needs the profileFilePrefix the session was created with (see profilingSessionOptions())",
      });
    }
    return runAndCapture(sessionOrModel, feeds, warmup, { ...options, profileFilePrefix });
  }
  const ort = await import("onnxruntime-node");
  const model = sessionOrModel as string;
  const warmupNs: number[] = [];
  let profiledWarmup = warmup;
  if ((options.warmupOn ?? "bare-session") === "bare-session" && warmup > 0) {
    const bare = await ort.InferenceSession.create(model, { logSeverityLevel: 3, ...options.sessionOptions });
    try {
      for (let index = 0; index < warmup; index++) {
        warmupNs.push(
          await timed(() => bare.run(feeds as InferenceSession.FeedsType, options.runOptions ?? {})),
        );
      }
    } finally {
      await bare.release();
    }
    profiledWarmup = 1;
  }
  const profiling = profilingSessionOptions();
  const tensorNames = options.tensorNames ?? true;
  try {
    const session = await ort.InferenceSession.create(model, {
      logSeverityLevel: 3, // saving an optimized model logs a warning about hardware-specific graphs
      ...options.sessionOptions,
      enableProfiling: true,
      profileFilePrefix: profiling.profileFilePrefix,
      ...(tensorNames ? { optimizedModelFilePath: profiling.optimizedModelFilePath } : {}),
    });
    let profiled: ProfiledInference<Outputs>;
    try {
      profiled = await runAndCapture(
        session as unknown as ProfilableSession<Feeds, Outputs>,
        feeds,
        profiledWarmup,
        {
          ...options,
          profileFilePrefix: profiling.profileFilePrefix,
          optimizedModelPath:
            tensorNames && existsSync(profiling.optimizedModelFilePath)
              ? profiling.optimizedModelFilePath
              : undefined,
        },
        warmupNs,
      );
    } finally {
      await session.release();
    }
    if (profiled.profilePath === undefined) return profiled;
    // A kept profile leaves the private directory: beside the trace, or in the temporary directory.
    const keptPath =
      options.out === undefined
        ? join(tmpdir(), basename(profiled.profilePath))
        : `${options.out.replace(/\.jsonl$/, "")}.ort-profile.json`;
    await moveFile(profiled.profilePath, keptPath);
    return { ...profiled, profilePath: keptPath };
  } finally {
    await rm(profiling.directory, { recursive: true, force: true });
  }
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start);
}

async function runAndCapture<Feeds, Outputs>(
  session: ProfilableSession<Feeds, Outputs>,
  feeds: Feeds,
  warmup: number,
  options: ProfileInferenceOptions & { profileFilePrefix: string },
  warmupNs: readonly number[] = [],
): Promise<ProfiledInference<Outputs>> {
  const profiledWarmupNs: number[] = [];
  const run = (): Promise<Outputs> =>
    options.runOptions === undefined ? session.run(feeds) : session.run(feeds, options.runOptions as never);
  for (let index = 0; index < warmup; index++) profiledWarmupNs.push(await timed(run));
  const captureRun = warmupNs.length + warmup + 1;
  const captured = await captureSessionRun(session, feeds, { ...options, captureRun }, options.runOptions);
  return { ...captured, warmupNs, profiledWarmupNs };
}

async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    await copyFile(from, to); // another file system
    await rm(from, { force: true });
  }
}
