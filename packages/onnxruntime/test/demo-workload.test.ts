import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyzeHealth, parseTrace, parseTraceText } from "@cg/parser";
import * as ort from "onnxruntime-node";
import { afterAll, describe, expect, it } from "vitest";
import { mlpModel } from "../src/demo-models.js";
import { runOnnxruntimeDemo } from "../src/demo-workload.js";
import { importOrtProfile } from "../src/import-ort-profile.js";
import { profileInference } from "../src/profile-inference.js";

const directory = mkdtempSync(join(tmpdir(), "cg-onnxruntime-demo-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("runOnnxruntimeDemo", () => {
  it("profiles the text encoder into a trusted trace with its scopes", async () => {
    const outPath = join(directory, "demo.jsonl");
    const { profiled, description } = await runOnnxruntimeDemo({ outPath, batch: 2, tokens: 8 });
    expect(description).toContain("2×8 tokens");
    const trace = await parseTrace(outPath);
    expect(analyzeHealth(trace).trusted).toBe(true);
    expect(trace.run.entrypoint).toBe("onnxruntime-demo::text_encoder");
    expect(trace.run.capture_step).toBe(4); // two warm-ups without the profiler, one with, then the capture
    expect(trace.ops).toHaveLength(profiled.profile.nodes.length);
    const modules = new Set(trace.spans.filter((span) => span.kind === "module").map((span) => span.name));
    expect(modules).toEqual(
      new Set([
        "embeddings",
        "embeddings/word_embeddings",
        "embeddings/mask",
        "encoder",
        "encoder/layer.0",
        "encoder/layer.0/dense",
        "encoder/layer.0/act",
        "encoder/layer.0/residual",
      ]),
    );
  });
});

describe("importOrtProfile to a writer", () => {
  it("hands the trace's lines to write instead of a file", async () => {
    const out = join(directory, "with-profile.jsonl");
    const x = new ort.Tensor("float32", new Float32Array(16), [1, 16]);
    const { profilePath } = await profileInference(mlpModel(), { x }, { out, keepProfile: true });
    const lines: string[] = [];
    const written = await importOrtProfile(profilePath ?? "", { write: (text) => lines.push(text) });
    expect(written.tracePath).toBeUndefined();
    expect(written.traceText).toBeUndefined();
    const trace = parseTraceText(lines.join(""));
    expect(analyzeHealth(trace).trusted).toBe(true);
    expect(trace.ops).toHaveLength(written.profile.nodes.length);
  });
});
