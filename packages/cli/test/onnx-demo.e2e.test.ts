import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, runBinary } from "./built-binary.js";
import { type ChromeTrace, checkPerfettoRules } from "./perfetto-rules.js";
import { scratchDirForFile } from "./test-files.js";

const scratch = scratchDirForFile("cg-cli-onnx-");
beforeAll(ensureBuilt, 300_000);

describe("cg-trace demo --model onnx", () => {
  it("profiles a real ONNX Runtime inference into a trusted trace, its summary and a Perfetto file", () => {
    const demo = runBinary(["demo", "--model", "onnx", "--out", "onnx-out", "--steps", "3"], {
      cwd: scratch,
    });
    expect(demo.status, demo.stderr).toBe(0);
    expect(demo.stderr).toContain("2 warm-up run(s), one more with the profiler on, then the captured run");
    expect(demo.stdout).toContain("Health: TRUSTED (0 error(s), 1 warning(s))");
    expect(demo.stdout).toContain("entrypoint:     onnxruntime-demo::text_encoder (infer)");
    expect(demo.stdout).toContain("captured step:  4 after 3 warm-up step(s)");
    expect(demo.stdout).toMatch(/Demo\S* \(onnx\): one inference captured/);
    const validate = runBinary(["validate", "onnx-out/application.jsonl"], { cwd: scratch });
    expect(validate.status, validate.stdout).toBe(0);
    const ops = runBinary(["query", "onnx-out/application.jsonl", "--kind", "spans", "--json"], {
      cwd: scratch,
    });
    expect(ops.status).toBe(0);
    expect(ops.stdout).toContain("encoder/layer.0");
    checkPerfettoRules(
      JSON.parse(readFileSync(join(scratch, "onnx-out/trace.perfetto.json"), "utf8")) as ChromeTrace,
    );
  });
});
