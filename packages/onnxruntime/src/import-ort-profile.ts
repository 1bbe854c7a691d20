import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { ProfileRun } from "@cg/writer";
import { deviceForProvider } from "./device-label.js";
import { traceDtype } from "./dtype-label.js";
import { type EmissionSummary, emitOrtRun, type TensorCheckpoint } from "./emit-ort-run.js";
import { type OnnxGraph, readOnnxGraph } from "./onnx-graph.js";
import type { OrtProfileRun } from "./ort-profile-run.js";
import { OrtTimeline } from "./ort-timeline.js";
import { readOrtProfile } from "./read-ort-profile.js";
import { ReplayClock } from "./replay-clock.js";
import { finishTrace, openTrace } from "./trace-output.js";

export interface ImportOrtProfileOptions {
  /** Where the trace goes; absent: returned as `traceText` (or handed to `write`). */
  out?: string | undefined;
  /** Receives the trace's lines instead of a file (a stream, standard output). */
  write?: ((text: string) => void) | undefined;
  /** One-based run of the profile; default the last. */
  run?: number | undefined;
  /** The optimized model the session saved (`optimizedModelFilePath`): tensor names, parameters, model inputs and outputs. */
  modelPath?: string | undefined;
  /** Entrypoint of the trace's run metadata; default `onnxruntime::<profile file name>`. */
  entrypoint?: string | undefined;
}

export interface ImportedProfile {
  readonly tracePath: string | undefined;
  readonly traceText: string | undefined;
  readonly summary: EmissionSummary;
  readonly profile: OrtProfileRun;
}

/**
 * Converts one run of an ONNX Runtime profile file into a trace. The file is streamed and only the
 * selected run is kept. The trace clock starts at the run's `model_run` (ONNX Runtime's µs × 1000,
 * exact for every u64), which is the measured span — or at an earlier node event of the run that
 * lies outside it. Node events outside the window are written outside `model_run`, counted in
 * `summary.outOfWindowNodes` and the tag `ort_out_of_window_node_events`, and make the trace
 * untrusted (`child_outside_parent`). Every error names the file and line.
 */
export async function importOrtProfile(
  path: string,
  options: ImportOrtProfileOptions = {},
): Promise<ImportedProfile> {
  const profile = await readOrtProfile(path, { run: options.run });
  const graph =
    options.modelPath === undefined ? undefined : readOnnxGraph(await readFile(options.modelPath));
  // Checked before the trace is opened: a bad instant leaves no file behind.
  const timeline = new OrtTimeline(profile, OrtTimeline.firstUs(profile), 0n, path);
  const device = deviceForProvider(profile.nodes[0]?.provider ?? "CPUExecutionProvider");
  let run = ProfileRun.inference(
    options.entrypoint ?? `onnxruntime::${basename(path)}`,
    profile.index,
    device,
  )
    .tag("source", "onnxruntime-profile")
    .tag("ort_profile_runs", String(profile.runCount));
  if (profile.outOfWindow.length > 0) {
    run = run.tag("ort_out_of_window_node_events", String(profile.outOfWindow.length));
  }
  if (profile.unassignedNodes > 0) {
    run = run.tag("ort_unassigned_node_events", String(profile.unassignedNodes));
  }
  const clock = new ReplayClock();
  clock.at(0);
  const trace = openTrace(options.out, run, clock, options.write);
  const summary = emitOrtRun({
    trace,
    clock,
    run: profile,
    timeline,
    graph,
    tensors: graph === undefined ? undefined : modelTensors(profile, graph),
  });
  clock.at(summary.measuredEndNs);
  return {
    ...finishTrace(trace),
    summary,
    profile,
  };
}

// The model's inputs and outputs with the shapes this run had: an output's from the node that
// produced it, an input's from the first node that read it (when the profile lists every input).
function modelTensors(profile: OrtProfileRun, graph: OnnxGraph): TensorCheckpoint[] {
  const found = new Map<string, TensorCheckpoint>();
  const wanted = new Set([...graph.inputs, ...graph.outputs].map((value) => value.name));
  for (const node of profile.nodes) {
    const graphNode = graph.nodes.get(node.nodeName);
    if (graphNode === undefined) continue;
    const device = deviceForProvider(node.provider);
    const sides = [
      { names: graphNode.outputs, values: node.outputs },
      { names: graphNode.inputs, values: graphNode.inputs.length === node.inputs.length ? node.inputs : [] },
    ];
    for (const { names, values } of sides) {
      for (const [index, value] of values.entries()) {
        const name = names[index];
        if (name === undefined || !wanted.has(name) || found.has(name)) continue;
        found.set(name, { name, dtype: traceDtype(value.ortType), shape: value.shape, device });
      }
    }
  }
  const ordered: TensorCheckpoint[] = [];
  for (const value of [...graph.inputs, ...graph.outputs]) {
    const tensor = found.get(value.name);
    if (tensor !== undefined) ordered.push(tensor);
  }
  return ordered;
}
