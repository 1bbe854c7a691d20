// Structural trust of a document (spec §12): every reference check, in the emission order of §12.1.
import { AllocationPairing } from "./allocation-pairing.js";
import {
  type HealthIssue,
  type HealthOptions,
  type HealthReport,
  healthReport,
  unknownEdgeSpanIssue,
  unknownSpanIssue,
} from "./health-issue.js";
import { pushPresenceWarnings } from "./presence-warnings.js";
import { spanStructureIssues } from "./span-structure-issues.js";
import { buildSpanTree } from "./span-tree.js";
import type { TraceDocument } from "./trace-document.js";

export type {
  HealthCoverage,
  HealthIssue,
  HealthOptions,
  HealthReport,
  HealthSeverity,
} from "./health-issue.js";

/** Computes the health of a document: trusted flag, issues in reference order, coverage. */
export function analyzeHealth(document: TraceDocument, options: HealthOptions = {}): HealthReport {
  const issues: HealthIssue[] = [];
  const { spans } = document;
  const tree = buildSpanTree(spans);
  const counts = spanStructureIssues(spans, options, issues, tree);

  for (const op of document.ops)
    if (!tree.byId.has(op.span_id)) issues.push(unknownSpanIssue("operation", op.span_id));
  for (const tensor of document.tensors) {
    if (!tree.byId.has(tensor.span_id)) issues.push(unknownSpanIssue("tensor", tensor.span_id));
  }
  for (const event of document.memory) {
    if (!tree.byId.has(event.span_id)) issues.push(unknownSpanIssue("memory", event.span_id));
  }
  for (const edge of document.edges) {
    if (!tree.byId.has(edge.from_span) || !tree.byId.has(edge.to_span)) {
      issues.push(unknownEdgeSpanIssue(edge.from_span, edge.to_span));
    }
  }

  const pairing = new AllocationPairing();
  const order = document.memory.map((_, index) => index);
  order.sort((left, right) => {
    const a = document.memory[left]?.timestamp_ns ?? 0;
    const b = document.memory[right]?.timestamp_ns ?? 0;
    return a < b ? -1 : a > b ? 1 : left - right;
  });
  for (const index of order) {
    const event = document.memory[index];
    if (event !== undefined) pairing.add(event.device, event.tensor_id, event.action, issues);
  }
  pairing.finish(issues);

  pushPresenceWarnings(issues, {
    operations: document.ops.length,
    tensors: document.tensors.length,
    memory: document.memory.length,
    deviceMemory: document.device_memory.length,
    gradients: document.gradients.length,
    forward: counts.forward,
    backward: counts.backward,
    optimizer: counts.optimizer,
    train: document.run.phase === "train",
  });

  return healthReport(issues, spans.length, counts, {
    operations: document.ops.length,
    tensors: document.tensors.length,
    memory_events: document.memory.length,
    device_memory_samples: document.device_memory.length,
    gradients: document.gradients.length,
    edges: document.edges.length,
  });
}
