import { mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  CaptureGate,
  ProfileRun,
  parseTrace,
  readTraceEvents,
  type TraceDocument,
  TraceSession,
} from "@cg/trace";
import { temporaryPathFor, writeFileAtomic } from "../atomic-write.js";
import { convertToPerfetto } from "../perfetto/perfetto-convert.js";
import { DeviceMemoryCheckpoints, type DeviceMemoryStatus } from "./device-memory-checkpoints.js";
import { DEFAULT_MLP_CONFIG, MlpTrainer } from "./mlp-trainer.js";

export interface DemoOptions {
  outDir: string;
  /** Training steps to run; the last one is captured unless `captureStep` says otherwise. */
  steps?: number;
  captureStep?: number;
  /** Sample NVIDIA GPUs through NVML when present (default true). */
  gpu?: boolean;
  /** Written into the Perfetto file's `otherData.converter`. */
  converter?: string;
}

export interface DemoResult {
  tracePath: string;
  perfettoPath: string;
  /** Present when @cg/report provides `renderReport`. */
  reportPath?: string;
  document: TraceDocument;
  losses: number[];
  deviceMemory: DeviceMemoryStatus;
}

export const DEMO_ENTRYPOINT = "demo::mlp::train_step";

type RenderReport = (document: TraceDocument, options?: Record<string, unknown>) => string;

/**
 * Trains the demo MLP for a few steps, capturing one of them (by default the second, after one
 * warm-up step) into `<outDir>/application.jsonl`, then writes `<outDir>/trace.perfetto.json` and,
 * when the report package offers it, `<outDir>/report.html`.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const steps = options.steps ?? 2;
  const captureStep = options.captureStep ?? steps;
  mkdirSync(options.outDir, { recursive: true });
  const tracePath = join(options.outDir, "application.jsonl");
  const temporaryTrace = temporaryPathFor(tracePath);
  const trainer = new MlpTrainer();
  const { batch, features, hidden, classes } = trainer.config;
  const run = ProfileRun.training(DEMO_ENTRYPOINT, captureStep, "cpu")
    .tag("model", `mlp-${features}-${hidden}-${classes}`)
    .tag("batch_size", String(batch))
    .tag("precision", "f32")
    .tag("optimizer", `sgd(lr=${DEFAULT_MLP_CONFIG.learningRate},momentum=${DEFAULT_MLP_CONFIG.momentum})`)
    .tag("seed", String(DEFAULT_MLP_CONFIG.seed));
  const deviceMemory = new DeviceMemoryCheckpoints(options.gpu ?? true);
  const gate = new CaptureGate(captureStep, () => TraceSession.open(temporaryTrace, run));
  const losses: number[] = [];
  try {
    for (let step = 1; step <= steps; step += 1) {
      const trace = gate.step(step);
      const name = `mlp/update-${String(step).padStart(12, "0")}`;
      deviceMemory.record(trace);
      const measured = trace.beginMeasurement(name);
      const result = trainer.trainStep(trace, step, "cpu", name);
      measured.end();
      deviceMemory.record(trace);
      losses.push(result.loss);
      if (gate.isCapturing) trace.finish();
    }
    renameSync(temporaryTrace, tracePath);
  } catch (error) {
    rmSync(temporaryTrace, { force: true });
    throw error;
  } finally {
    deviceMemory.close();
  }

  const document = await parseTrace(tracePath);
  const perfettoPath = join(options.outDir, "trace.perfetto.json");
  async function* events() {
    for await (const record of readTraceEvents(tracePath)) yield record.event;
  }
  await writeFileAtomic(perfettoPath, (write) =>
    convertToPerfetto(
      events(),
      write,
      options.converter === undefined ? {} : { converter: options.converter },
    ),
  );
  const result: DemoResult = { tracePath, perfettoPath, document, losses, deviceMemory: deviceMemory.status };
  // Loaded dynamically so that a report package without `renderReport` still lets the demo run.
  const report = (await import("@cg/report")) as Record<string, unknown>;
  const renderReport = report.renderReport as RenderReport | undefined;
  if (typeof renderReport === "function") {
    const reportPath = join(options.outDir, "report.html");
    const html = renderReport(document, {});
    await writeFileAtomic(reportPath, (write) => write(html));
    result.reportPath = reportPath;
  }
  return result;
}
