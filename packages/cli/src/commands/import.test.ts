import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mlpModel, profileInference } from "@cg/onnxruntime";
import { analyzeHealth, parseTrace, parseTraceText } from "@cg/trace";
import * as ort from "onnxruntime-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess } from "../../test/run-in-process.js";

const directory = mkdtempSync(join(tmpdir(), "cg-import-"));
let profile = "";
afterAll(() => rmSync(directory, { recursive: true, force: true }));

// A real ONNX Runtime profile: one warm-up and one captured run of a small MLP, kept beside the trace.
beforeAll(async () => {
  const x = new ort.Tensor("float32", new Float32Array(2 * 16).fill(0.5), [2, 16]);
  const result = await profileInference(
    mlpModel(),
    { x },
    {
      warmup: 1,
      warmupOn: "profiling-session",
      out: join(directory, "captured.jsonl"),
      keepProfile: true,
    },
  );
  profile = result.profilePath ?? "";
});

describe("cg-trace import --from onnxruntime", () => {
  it("writes a trusted trace of the chosen run and says what it wrote", async () => {
    const result = await runInProcess(
      ["import", "--from", "onnxruntime", profile, "-o", "run1.jsonl", "--run", "1"],
      {
        cwd: directory,
      },
    );
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(
      /^wrote run1\.jsonl: run 1 of 2, 3 ops, \d+ spans, \d+ memory events, 4 device-memory checkpoints, 0 tensors\n$/,
    );
    const trace = await parseTrace(join(directory, "run1.jsonl"));
    expect(analyzeHealth(trace).trusted).toBe(true);
    expect(trace.run.capture_step).toBe(1);
    expect(trace.ops.map((op) => op.op_name)).toEqual(["FusedGemm", "Gemm", "Softmax"]);
  });

  it("writes the last run to standard output with -o -", async () => {
    const result = await runInProcess(["import", "--from", "onnxruntime", profile, "-o", "-"], {
      cwd: directory,
    });
    expect(result.exitCode).toBe(0);
    const trace = parseTraceText(result.stdout);
    expect(trace.run.capture_step).toBe(2);
    expect(result.stderr).toMatch(/^wrote -: run 2 of 2/);
  });

  it("refuses what is not an ONNX Runtime profile in one line, exit 2, leaving no output", async () => {
    const truncated = join(directory, "truncated.json");
    const text = readFileSync(profile, "utf8");
    writeFileSync(truncated, text.slice(0, Math.floor(text.length / 2)));
    const kineto = join(directory, "kineto.json");
    writeFileSync(kineto, '{\n  "schemaVersion": 1,\n  "traceEvents": []\n}\n');
    const cases: [string[], RegExp][] = [
      [
        ["import", "--from", "onnxruntime", truncated, "-o", "t.jsonl"],
        /^cg-trace: import: \/.*truncated\.json line \d+: the profile is truncated/,
      ],
      [
        ["import", "--from", "onnxruntime", "kineto.json", "-o", "t.jsonl"],
        /^cg-trace: import: kineto\.json line 1: not an ONNX Runtime profile: the file is a JSON object/,
      ],
      [
        ["import", "--from", "onnxruntime", "missing.json", "-o", "t.jsonl"],
        /^cg-trace: import: cannot read .*missing\.json: no such file/,
      ],
      [
        ["import", "--from", "onnxruntime", profile, "-o", "t.jsonl", "--run", "9"],
        /run 9 requested, but the profile holds 2 runs/,
      ],
      [
        ["import", "--from", "pytorch", profile, "-o", "t.jsonl"],
        /--from must be one of onnxruntime, got "pytorch"/,
      ],
      [["import", profile, "-o", "t.jsonl"], /--from is required/],
      [["import", "--from", "onnxruntime", profile], /-o\/--output <trace\.jsonl> is required/],
    ];
    for (const [argv, message] of cases) {
      const result = await runInProcess(argv, { cwd: directory });
      expect(result.exitCode, argv.join(" ")).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
    }
    expect(() => readFileSync(join(directory, "t.jsonl"))).toThrow(/ENOENT/);
  });

  it("counts and warns about node events outside the run's model_run window, and the trace is not trusted", async () => {
    writeFileSync(
      join(directory, "outside.json"),
      `[\n${nodeLine("early", 950, 5)},\n${nodeLine("inside", 1001, 3)},\n${sessionLine("model_run", 1000, 10)}\n]\n`,
    );
    const result = await runInProcess(
      ["import", "--from", "onnxruntime", "outside.json", "-o", "outside.jsonl"],
      {
        cwd: directory,
      },
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(
      "wrote outside.jsonl: run 1 of 1, 2 ops, 3 spans, 0 memory events, 0 device-memory checkpoints, 0 tensors, 1 node event outside model_run\n",
    );
    expect(result.stderr).toBe(
      "cg-trace: import: warning: outside.json: 1 node event of run 1 (line 2) starts outside its model_run window; " +
        "written where ONNX Runtime put it, outside model_run, so the trace is not trusted (tag ort_out_of_window_node_events)\n",
    );
    const trace = await parseTrace(join(directory, "outside.jsonl"));
    expect(trace.run.tags.ort_out_of_window_node_events).toBe("1");
    expect(trace.ops).toHaveLength(2);
    expect(analyzeHealth(trace).trusted).toBe(false);
  });

  it("warns about node events after the profile's last model_run, which no run holds", async () => {
    writeFileSync(
      join(directory, "cut-off.json"),
      `[\n${sessionLine("model_run", 1000, 10)},\n${nodeLine("late", 2000, 3)}\n]\n`,
    );
    const result = await runInProcess(
      ["import", "--from", "onnxruntime", "cut-off.json", "-o", "cut-off.jsonl"],
      {
        cwd: directory,
      },
    );
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe(
      "cg-trace: import: warning: cut-off.json: 1 node event after the profile's last model_run belongs to no run and is in no trace (tag ort_unassigned_node_events)\n",
    );
  });

  it("refuses a dur no trace can hold naming the file and line, exit 2, leaving no output", async () => {
    writeFileSync(
      join(directory, "huge.json"),
      `[\n${nodeLine("n", 1001, "1152921504606846976")},\n${sessionLine("model_run", 1000, 10)}\n]\n`,
    );
    const result = await runInProcess(["import", "--from", "onnxruntime", "huge.json", "-o", "huge.jsonl"], {
      cwd: directory,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(
      /^cg-trace: import: huge\.json line 2: field `dur` puts the event end at \d+ ns/,
    );
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(() => readFileSync(join(directory, "huge.jsonl"))).toThrow(/ENOENT/);
  });
});

function nodeLine(name: string, ts: number, dur: number | string): string {
  return `{"cat":"Node","pid":7,"tid":7,"dur":${dur},"ts":${ts},"ph":"X","name":"${name}_kernel_time","args":{"op_name":"Relu","provider":"CPUExecutionProvider"}}`;
}

function sessionLine(name: string, ts: number, dur: number): string {
  return `{"cat":"Session","pid":7,"tid":7,"dur":${dur},"ts":${ts},"ph":"X","name":"${name}","args":{}}`;
}
