import { describe, expect, it } from "vitest";
import type { OrtNodeEvent } from "./ort-profile-run.js";
import { buildScopeTree, type ScopeItem, scopePath } from "./scope-tree.js";

function node(nodeName: string, startUs: number, provider = "CPUExecutionProvider"): OrtNodeEvent {
  return {
    nodeName,
    opType: "Op",
    provider,
    nodeIndex: undefined,
    startUs: BigInt(startUs),
    durationUs: 2n,
    inputs: [],
    outputs: [],
    outputBytes: undefined,
    activationBytes: undefined,
    parameterBytes: undefined,
    allocator: undefined,
    line: 1,
  };
}

function outline(items: readonly ScopeItem[]): unknown[] {
  return items.map((item) =>
    item.kind === "node"
      ? item.node.nodeName
      : { [item.name]: outline(item.children), at: [Number(item.startUs), Number(item.endUs)] },
  );
}

describe("buildScopeTree", () => {
  it("nests exporter scopes, keeping fused nodes in the scope of the node they replaced", () => {
    expect(scopePath("/encoder/layer.0/attn/MatMul")).toEqual(["encoder", "layer.0", "attn"]);
    expect(scopePath("fused /encoder/fc1/MatMul/MatMulAddFusion")).toEqual(["encoder", "fc1"]);
    expect(scopePath("Add_3")).toEqual([]);
    const tree = buildScopeTree([
      node("/enc/a/MatMul", 10),
      node("/enc/b/Relu", 13),
      node("/enc/a/Add", 16),
      node("Cast_1", 20),
    ]);
    expect(outline(tree)).toEqual([
      {
        enc: [
          { "enc/a": ["/enc/a/MatMul"], at: [10, 12] },
          { "enc/b": ["/enc/b/Relu"], at: [13, 15] },
          { "enc/a": ["/enc/a/Add"], at: [16, 18] },
        ],
        at: [10, 18],
      },
      "Cast_1",
    ]);
  });

  it("orders by start time and splits execution-provider partitions when there are several", () => {
    const tree = buildScopeTree([node("/m/B", 5, "CUDAExecutionProvider"), node("/m/A", 1), node("/m/C", 9)]);
    expect(outline(tree)).toEqual([
      { CPUExecutionProvider: [{ m: ["/m/A"], at: [1, 3] }], at: [1, 3] },
      { CUDAExecutionProvider: [{ m: ["/m/B"], at: [5, 7] }], at: [5, 7] },
      { CPUExecutionProvider: [{ m: ["/m/C"], at: [9, 11] }], at: [9, 11] },
    ]);
  });
});
