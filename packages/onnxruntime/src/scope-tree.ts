import type { OrtNodeEvent } from "./ort-profile-run.js";

/** A span of the model's structure: an execution-provider partition or a node-name scope. */
export interface ScopeGroup {
  readonly kind: "group";
  readonly name: string;
  readonly children: readonly ScopeItem[];
  readonly startUs: bigint;
  readonly endUs: bigint;
}

export interface ScopeLeaf {
  readonly kind: "node";
  readonly node: OrtNodeEvent;
  readonly startUs: bigint;
  readonly endUs: bigint;
}

export type ScopeItem = ScopeGroup | ScopeLeaf;

/**
 * Groups the executed nodes (in start order) into the model's structure: first by execution
 * provider when the run used more than one, then by the scopes of the node names
 * (`/encoder/layer.0/attention/MatMul` → `encoder` › `encoder/layer.0` › `encoder/layer.0/attention`),
 * which is how exporters (PyTorch, tf2onnx, Optimum) name nodes. A scope that runs again after
 * another scope ran in between gets a second span, so siblings never overlap in time.
 */
export function buildScopeTree(nodes: readonly OrtNodeEvent[]): ScopeItem[] {
  const ordered = nodes
    .map((node, order) => ({ node, order }))
    .sort((a, b) =>
      a.node.startUs < b.node.startUs ? -1 : a.node.startUs > b.node.startUs ? 1 : a.order - b.order,
    )
    .map(({ node }) => ({ node, path: scopePath(node.nodeName) }));
  const providers = new Set(ordered.map(({ node }) => node.provider));
  if (providers.size <= 1) return groupByScope(ordered, 0);
  const partitions: ScopeItem[] = [];
  for (const run of consecutiveRuns(ordered, (entry) => entry.node.provider)) {
    partitions.push(group(run.key, groupByScope(run.items, 0)));
  }
  return partitions;
}

interface PathedNode {
  readonly node: OrtNodeEvent;
  readonly path: readonly string[];
}

/** The scope segments of a node name, without the node's own last segment. */
export function scopePath(nodeName: string): string[] {
  // ONNX Runtime names a node it fused `fused <first node's name>`.
  const name = nodeName.startsWith("fused ") ? nodeName.slice("fused ".length) : nodeName;
  const segments = name.split("/").filter((segment) => segment !== "");
  // A fusion appends its own name (`/encoder/fc1/MatMul/MatMulAddFusion`): the node stays in the
  // scope of the node it replaced.
  const last = segments[segments.length - 1];
  if (segments.length > 1 && last !== undefined && /Fusion$/.test(last)) segments.pop();
  return segments.slice(0, -1);
}

function groupByScope(entries: readonly PathedNode[], depth: number): ScopeItem[] {
  const items: ScopeItem[] = [];
  for (const run of consecutiveRuns(entries, (entry) => entry.path[depth])) {
    if (run.key === undefined) {
      for (const { node } of run.items) items.push(leaf(node));
      continue;
    }
    const name = (run.items[0] as PathedNode).path.slice(0, depth + 1).join("/");
    items.push(group(name, groupByScope(run.items, depth + 1)));
  }
  return items;
}

function leaf(node: OrtNodeEvent): ScopeLeaf {
  return { kind: "node", node, startUs: node.startUs, endUs: node.startUs + node.durationUs };
}

// A group spans its children; a parent never starts after or ends before one of them.
function group(name: string, children: ScopeItem[]): ScopeGroup {
  let startUs = (children[0] as ScopeItem).startUs;
  let endUs = 0n;
  for (const child of children) {
    if (child.startUs < startUs) startUs = child.startUs;
    if (child.endUs > endUs) endUs = child.endUs;
  }
  return { kind: "group", name, children, startUs, endUs };
}

function consecutiveRuns<T, K>(items: readonly T[], keyOf: (item: T) => K): { key: K; items: T[] }[] {
  const runs: { key: K; items: T[] }[] = [];
  for (const item of items) {
    const key = keyOf(item);
    const last = runs[runs.length - 1];
    if (last !== undefined && last.key === key) last.items.push(item);
    else runs.push({ key, items: [item] });
  }
  return runs;
}
