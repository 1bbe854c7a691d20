// Small measured updates for the comparison tests: layers of ops, scratch and kept allocations,
// each span exactly as long as its ops plus 100 ns of its own.
import { parseTraceText, type TraceDocument } from "./index.js";

export interface Layer {
  name: string;
  step?: "forward" | "backward" | "optimizer";
  /** [op name, duration ns] of each op. */
  ops: [string, number][];
  /** Bytes allocated in the layer and freed at its end (category activation unless given). */
  scratch?: number;
  /** Bytes allocated in the layer and kept to the end of the step. */
  kept?: [number, "activation" | "gradient" | "optimizer" | "parameter"];
}

/** A measured update of `layers`, each span exactly as long as its ops plus 100 ns of its own. */
export function trace(layers: Layer[], update = 1): TraceDocument {
  const events: object[] = [
    {
      kind: "meta",
      schema: "candle-graph/trace/6",
      run_id: `run-${update}`,
      correlation_id: "c",
      entrypoint: "e",
      phase: "train",
      timestamp: "2025-01-01T00:00:00.000Z",
      capture_step: 1,
      warmup_steps: 0,
      device: "cpu",
      timing_mode: "host",
      tags: {},
    },
    { kind: "span_start", id: "s1", name: "e", start_ns: 0, span_kind: "function" },
    {
      kind: "span_start",
      id: "s2",
      parent_id: "s1",
      name: `model/update-${String(update).padStart(6, "0")}`,
      start_ns: 0,
      span_kind: "function",
      measured: true,
    },
    {
      kind: "memory",
      span_id: "s1",
      tensor_id: "weights",
      device: "cpu",
      bytes: 1000,
      action: "alloc",
      dtype: "f32",
      category: "parameter",
      timestamp_ns: 0,
    },
  ];
  let clock = 10;
  const kept: string[] = [];
  layers.forEach((layer, index) => {
    const id = `s${index + 3}`;
    const start = clock;
    events.push({
      kind: "span_start",
      id,
      parent_id: "s2",
      name: layer.name,
      start_ns: start,
      span_kind: "function",
      ...(layer.step === undefined ? {} : { step: layer.step }),
    });
    clock += 50;
    for (const [op, ns] of layer.ops) {
      events.push({
        kind: "op",
        span_id: id,
        op_name: op,
        shape: [4],
        dtype: "f32",
        device: "cpu",
        duration_ns: ns,
        timestamp_ns: clock,
      });
      clock += ns;
    }
    const memory = (tensor: string, bytes: number, action: string, category: string) =>
      events.push({
        kind: "memory",
        span_id: id,
        tensor_id: tensor,
        device: "cpu",
        bytes,
        action,
        dtype: "f32",
        category,
        op_name: "alloc_op",
        timestamp_ns: clock,
      });
    if (layer.kept !== undefined) {
      memory(`${id}-kept`, layer.kept[0], "alloc", layer.kept[1]);
      kept.push(`${id}-kept`);
    }
    if (layer.scratch !== undefined) {
      memory(`${id}-scratch`, layer.scratch, "alloc", "activation");
      clock += 1;
      memory(`${id}-scratch`, layer.scratch, "free", "activation");
    }
    clock += 50;
    events.push({ kind: "span_end", id, duration_ns: clock - start });
  });
  events.push({ kind: "span_end", id: "s2", duration_ns: clock });
  events.push({ kind: "span_end", id: "s1", duration_ns: clock + 5 });
  return parseTraceText(events.map((event) => JSON.stringify(event)).join("\n"));
}

export const LAYERS: Layer[] = [
  {
    name: "forward",
    step: "forward",
    ops: [
      ["matmul", 1000],
      ["relu", 200],
    ],
    scratch: 300,
  },
  {
    name: "backward",
    step: "backward",
    ops: [
      ["matmul", 2000],
      ["relu_grad", 300],
    ],
    kept: [500, "gradient"],
  },
  { name: "optimizer", step: "optimizer", ops: [["adam", 400]], scratch: 100 },
];
