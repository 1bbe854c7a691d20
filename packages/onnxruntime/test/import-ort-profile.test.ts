import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyzeHealth, parseTrace, parseTraceText } from "@cg/parser";
import * as ort from "onnxruntime-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { branchResidualModel } from "../src/demo-models.js";
import { importOrtProfile } from "../src/import-ort-profile.js";
import { OrtProfileError } from "../src/ort-profile-error.js";
import { profilingSessionOptions } from "../src/profiling-session-options.js";
import { readOrtProfile } from "../src/read-ort-profile.js";

const directory = mkdtempSync(join(tmpdir(), "cg-onnxruntime-import-"));
let profilePath = "";
let modelPath = "";
afterAll(() => rmSync(directory, { recursive: true, force: true }));

// A real profile: three runs of the branch/residual model, and the optimized model beside it.
beforeAll(async () => {
  const profiling = profilingSessionOptions(directory);
  const session = await ort.InferenceSession.create(branchResidualModel(), {
    enableProfiling: true,
    profileFilePrefix: profiling.profileFilePrefix,
    optimizedModelFilePath: profiling.optimizedModelFilePath,
    logSeverityLevel: 3,
  });
  for (let run = 0; run < 3; run++) {
    await session.run({ x: new ort.Tensor("float32", new Float32Array(48).fill(run / 10), [2, 24]) });
  }
  session.endProfiling();
  await session.release();
  const file = readdirSync(profiling.directory).find((name) => name.startsWith("profile_"));
  profilePath = join(directory, "real-profile.json");
  modelPath = join(directory, "optimized.onnx");
  copyFileSync(join(profiling.directory, file ?? ""), profilePath);
  copyFileSync(profiling.optimizedModelFilePath, modelPath);
});

async function rejection(promise: Promise<unknown>): Promise<OrtProfileError> {
  try {
    await promise;
  } catch (error) {
    if (OrtProfileError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected an OrtProfileError");
}

describe("importOrtProfile", () => {
  it("writes a trusted trace of the chosen run whose ops are that run's nodes, at exact nanoseconds", async () => {
    const out = join(directory, "run2.jsonl");
    const imported = await importOrtProfile(profilePath, { out, run: 2, modelPath });
    const profile = await readOrtProfile(profilePath, { run: 2 });
    const trace = await parseTrace(out);
    expect(analyzeHealth(trace).trusted).toBe(true);
    expect(trace.run.capture_step).toBe(2);
    expect(trace.run.tags.ort_profile_runs).toBe("3");
    const measured = trace.spans.find((span) => span.measured);
    expect(measured?.name).toBe("model_run");
    expect(measured?.start_ns).toBe(0);
    expect(measured?.duration_ns).toBe(Number(profile.modelRun.durationUs * 1000n));
    expect(trace.ops).toHaveLength(profile.nodes.length);
    expect(imported.summary.ops).toBe(profile.nodes.length);
    for (const node of profile.nodes) {
      const op = trace.ops.find(
        (candidate) => candidate.timestamp_ns === Number((node.startUs - profile.modelRun.startUs) * 1000n),
      );
      expect(op?.op_name).toBe(node.opType);
      expect(op?.duration_ns).toBe(Number(node.durationUs * 1000n));
    }
    expect(trace.tensors.map((tensor) => [tensor.tensor_id, tensor.shape])).toEqual([
      ["x", [2, 24]],
      ["y", [2, 24]],
    ]);
    expect(
      trace.memory
        .filter((event) => event.category === "parameter")
        .map((event) => event.tensor_id)
        .sort(),
    ).toEqual(["left.weight", "right.weight"]);
  });

  it("imports the last run without the model, naming no tensors it cannot know", async () => {
    const imported = await importOrtProfile(profilePath);
    const trace = parseTraceText(imported.traceText ?? "");
    expect(analyzeHealth(trace).trusted).toBe(true);
    expect(trace.run.capture_step).toBe(3);
    expect(trace.tensors).toEqual([]);
    expect(trace.ops.every((op) => op.output === undefined)).toBe(true);
  });

  it("calls a cut-off profile truncated, naming the file and line", async () => {
    const text = readFileSync(profilePath, "utf8");
    const truncated = join(directory, "truncated.json");
    writeFileSync(truncated, text.slice(0, Math.floor(text.length * 0.6)));
    const error = await rejection(importOrtProfile(truncated));
    expect(error.code).toBe("truncated");
    expect(error.file).toBe(truncated);
    expect(error.message).toContain(`${truncated} line `);
  });

  it("refuses a Perfetto JSON trace, a Kineto trace and a binary Perfetto trace with a clear message", async () => {
    const perfetto = join(directory, "perfetto.json");
    writeFileSync(
      perfetto,
      JSON.stringify({
        traceEvents: [{ name: "MatMul", ph: "X", ts: 1, dur: 3, pid: 1, tid: 1 }],
        displayTimeUnit: "ns",
      }),
    );
    const kineto = join(directory, "kineto.pt.trace.json");
    writeFileSync(
      kineto,
      `{\n  "schemaVersion": 1,\n  "deviceProperties": [],\n  "traceEvents": [\n  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 2}\n  ]\n}\n`,
    );
    const binary = join(directory, "trace.perfetto-trace");
    writeFileSync(binary, Buffer.from([0x0a, 0x8c, 0x01, 0x12, 0x00, 0x22, 0x05]));
    for (const path of [perfetto, kineto]) {
      const error = await rejection(importOrtProfile(path));
      expect(error.code).toBe("not_ort_profile");
      expect(error.message).toBe(
        `${path} line 1: not an ONNX Runtime profile: the file is a JSON object, while ONNX Runtime writes a JSON array of events (a Chrome/Perfetto JSON trace or a PyTorch Kineto trace is an object with "traceEvents"; convert those with their own tools)`,
      );
    }
    const error = await rejection(importOrtProfile(binary));
    expect(error.code).toBe("not_ort_profile");
    expect(error.message).toMatch(
      /: not an ONNX Runtime profile: binary content \(a Perfetto protobuf trace\?\)/,
    );
  });
});
