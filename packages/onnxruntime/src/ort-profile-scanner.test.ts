import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OrtProfileError } from "./ort-profile-error.js";
import { scanOrtProfileText } from "./read-ort-profile.js";

function nodeEvent(
  name: string,
  op: string,
  ts: number,
  dur: number,
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    cat: "Node",
    pid: 7,
    tid: 7,
    dur,
    ts,
    ph: "X",
    name: `${name}_kernel_time`,
    args: {
      op_name: op,
      provider: "CPUExecutionProvider",
      node_index: "0",
      input_type_shape: [{ float: [2, 4] }],
      output_type_shape: [{ float: [2, 4] }],
      output_size: "32",
      parameter_size: "0",
      activation_size: "32",
      mem_bytes_in_use: "512",
      mem_in_use_delta: "64",
      mem_arena_held: "4096",
      mem_arena_held_delta: "0",
      ...extra,
    },
  });
}

function sessionEvent(name: string, ts: number, dur: number): string {
  return JSON.stringify({ cat: "Session", pid: 7, tid: 7, dur, ts, ph: "X", name, args: {} });
}

/** A profile as ONNX Runtime writes it: `[`, one event per line with a trailing comma, `]`. */
function profileText(runs: number): string {
  const events = [
    sessionEvent("model_loading_array", 1, 10),
    sessionEvent("session_initialization", 12, 100),
  ];
  for (let run = 0; run < runs; run++) {
    const base = 200 + run * 100;
    events.push(nodeEvent("/a/Relu", "Relu", base + 2, 5), nodeEvent("/b/Tanh", "Tanh", base + 8, 3));
    events.push(
      sessionEvent("SequentialExecutor::Execute", base + 1, 12),
      sessionEvent("model_run", base, 20),
    );
  }
  return `[\n${events.join(",\n")}\n]\n`;
}

describe("OrtProfileScanner", () => {
  it("reads the selected run's nodes with their allocator figures", () => {
    const run = scanOrtProfileText(profileText(3), { run: 2 });
    expect(run.index).toBe(2);
    expect(run.runCount).toBe(3);
    expect(run.modelRun).toEqual({ startUs: 300n, durationUs: 20n, line: 11 });
    expect(run.executor).toEqual({
      name: "SequentialExecutor::Execute",
      startUs: 301n,
      durationUs: 12n,
      line: 10,
    });
    expect(run.nodes.map((node) => [node.nodeName, node.opType, node.startUs, node.durationUs])).toEqual([
      ["/a/Relu", "Relu", 302n, 5n],
      ["/b/Tanh", "Tanh", 308n, 3n],
    ]);
    expect(run.nodes[0]?.allocator).toEqual({
      bytesInUse: 512,
      inUseDelta: 64,
      arenaHeld: 4096,
      arenaHeldDelta: 0,
      inUsePeak: undefined,
    });
    expect(scanOrtProfileText(profileText(3)).index).toBe(3);
  });

  it("handles a profile without allocator figures", () => {
    const text = `[\n${nodeEvent("n", "Add", 5, 1, { mem_bytes_in_use: undefined })},\n${sessionEvent("model_run", 4, 3)}\n]`;
    expect(scanOrtProfileText(text).nodes[0]?.allocator).toBeUndefined();
  });

  it("calls every cut-off profile truncated and names the line", () => {
    const text = profileText(2);
    const end = text.trimEnd().length;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: end - 1 }), (cut) => {
        try {
          scanOrtProfileText(text.slice(0, cut));
        } catch (error) {
          expect(OrtProfileError.isInstance(error)).toBe(true);
          expect((error as OrtProfileError).code).toBe("truncated");
          expect((error as OrtProfileError).message).toMatch(/line \d+: the profile is truncated/);
          return;
        }
        throw new Error(`a profile cut at ${cut} of ${end} was accepted`);
      }),
      { numRuns: 200 },
    );
  });

  it("refuses Chrome/Perfetto JSON objects, Kineto traces and event arrays of other tools", () => {
    const perfetto = JSON.stringify({ traceEvents: [{ name: "x", ph: "X", ts: 1, dur: 2, pid: 1, tid: 1 }] });
    const kineto = `{\n  "schemaVersion": 1,\n  "deviceProperties": [],\n  "traceEvents": []\n}`;
    for (const text of [perfetto, kineto]) {
      expect(() => scanOrtProfileText(text, { file: "t.json" })).toThrow(
        /t\.json line 1: not an ONNX Runtime profile: the file is a JSON object/,
      );
    }
    const chromeArray = `[\n${JSON.stringify({ name: "x", ph: "X", ts: 1, dur: 2, cat: "gpu" })}\n]`;
    expect(() => scanOrtProfileText(chromeArray)).toThrow(
      /not an ONNX Runtime profile: .* none with cat `Session` or `Node`/,
    );
    expect(() => scanOrtProfileText("")).toThrow(/is empty/);
    expect(() => scanOrtProfileText("hello")).toThrow(/does not start with `\[`/);
  });

  it("names the line and field of a malformed event", () => {
    const bad = nodeEvent("n", "Add", 5, 1).replace('"ts":5', '"ts":"5"');
    expect(() =>
      scanOrtProfileText(`[\n${sessionEvent("model_run", 1, 9)},\n${bad}\n]`, { file: "p.json" }),
    ).toThrow("p.json line 3: field `ts` must be a whole number of microseconds ≥ 0");
    const badShape = nodeEvent("n", "Add", 5, 1, { output_type_shape: [{ float: [2, -1] }] });
    expect(() => scanOrtProfileText(`[\n${badShape}\n]`)).toThrow(
      "field `args.output_type_shape[0].float[1]`",
    );
    expect(() => scanOrtProfileText(`[\n{"cat":"Node",\n${sessionEvent("model_run", 1, 9)}\n]`)).toThrow(
      /line 2: not a JSON event/,
    );
    expect(() => scanOrtProfileText(profileText(1), { run: 0 })).toThrow(
      /run must be a whole number from 1 up/,
    );
  });

  it("leaves out node events outside the run's interval", () => {
    const text = `[\n${nodeEvent("early", "Add", 1, 1)},\n${nodeEvent("inside", "Mul", 11, 1)},\n${sessionEvent("model_run", 10, 5)}\n]`;
    const run = scanOrtProfileText(text);
    expect(run.nodes.map((node) => node.nodeName)).toEqual(["inside"]);
    expect(run.outOfWindow.map((node) => [node.nodeName, node.line])).toEqual([["early", 2]]);
  });
});
