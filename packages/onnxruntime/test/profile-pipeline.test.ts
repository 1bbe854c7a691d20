import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyzeHealth, parseTraceText } from "@cg/parser";
import { env, type FeatureExtractionPipeline, pipeline } from "@huggingface/transformers";
import { afterAll, describe, expect, it } from "vitest";
import { writeFeatureExtractionModel } from "../src/feature-extraction-model.js";
import { type PipelineLike, profilePipeline } from "../src/profile-pipeline.js";
import { profilingSessionOptions } from "../src/profiling-session-options.js";

const directory = mkdtempSync(join(tmpdir(), "cg-onnxruntime-transformers-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function extractor(sessionOptions: object): Promise<FeatureExtractionPipeline> {
  env.allowRemoteModels = false; // no model hub: the model is the one written below
  env.localModelPath = directory;
  return (await pipeline("feature-extraction", "tiny-encoder", {
    dtype: "fp32",
    device: "cpu",
    session_options: sessionOptions,
  })) as FeatureExtractionPipeline;
}

describe("profilePipeline with transformers.js", () => {
  it("profiles one feature-extraction call offline: pipeline › session.run › model_run › scopes › ops", async () => {
    await writeFeatureExtractionModel(join(directory, "tiny-encoder"));
    const text = "hello world, the model runs in node";
    const bare = await extractor({});
    const expected = await bare(text, { pooling: "mean", normalize: true });

    const profiling = profilingSessionOptions(directory);
    const pipe = await extractor({
      enableProfiling: true,
      profileFilePrefix: profiling.profileFilePrefix,
      optimizedModelFilePath: profiling.optimizedModelFilePath,
      logSeverityLevel: 3,
    });
    const profiled = await profilePipeline(
      pipe as unknown as PipelineLike,
      () => pipe(text, { pooling: "mean", normalize: true }),
      {
        warmup: 2,
        profileFilePrefix: profiling.profileFilePrefix,
        optimizedModelPath: profiling.optimizedModelFilePath,
        name: "feature-extraction",
      },
    );
    // Profiling does not change the embedding.
    expect(Array.from(profiled.result.data as Float32Array)).toEqual(
      Array.from(expected.data as Float32Array),
    );
    expect(profiled.sessionRuns).toBe(1);
    expect(profiled.profile.runCount).toBe(3);
    expect(readdirSync(profiling.directory)).toEqual(["optimized.onnx"]); // the profile is gone

    const trace = parseTraceText(profiled.traceText ?? "");
    expect(analyzeHealth(trace).trusted).toBe(true);
    expect(trace.run.entrypoint).toBe("transformers.js::pipeline");
    expect(trace.run.tags.framework).toBe("transformers.js");
    const byName = new Map(trace.spans.map((span) => [span.name, span]));
    const byId = new Map(trace.spans.map((span) => [span.id, span]));
    const parentOf = (name: string) => byId.get(byName.get(name)?.parent_id ?? "")?.name;
    expect(byName.get("feature-extraction")?.measured).toBe(true);
    expect(parentOf("session.run")).toBe("feature-extraction");
    expect(parentOf("model_run")).toBe("session.run");
    expect(parentOf("embeddings")).toBe("SequentialExecutor::Execute");
    expect(parentOf("encoder/layer.0")).toBe("encoder");
    expect(trace.ops).toHaveLength(profiled.profile.nodes.length);
    const gather = trace.ops.find((op) => op.op_name === "Gather");
    const tokens = (trace.tensors.find((tensor) => tensor.tensor_id === "input_ids")?.shape ?? [])[1];
    expect(gather?.shape).toEqual([1, tokens, 32]);
    expect(trace.tensors.map((tensor) => [tensor.tensor_id, tensor.dtype])).toEqual([
      ["input_ids", "i64"],
      ["attention_mask", "i64"],
      ["last_hidden_state", "f32"],
    ]);
    expect(trace.memory.some((event) => event.tensor_id === "embeddings.word_embeddings.weight")).toBe(true);
    rmSync(profiling.directory, { recursive: true, force: true });
  });
});
