// Structural trust of a document (spec §12): every reference check, in the emission order of §12.1.
import { formatU64, u64ToBigInt } from "@cg/schema";
import { buildSpanTree, durationSum, type SpanTree, spanEnd, unionLength } from "./span-tree.js";
import { StringSet } from "./string-set.js";
import type { SpanRecord, TraceDocument } from "./trace-document.js";

export type HealthSeverity = "error" | "warning";

export interface HealthIssue {
  severity: HealthSeverity;
  code: string;
  message: string;
  /** The span the issue is about, for span-level checks. */
  span_id?: string;
}

export interface HealthCoverage {
  spans: number;
  closed_spans: number;
  root_spans: number;
  measured_spans: number;
  operations: number;
  tensors: number;
  memory_events: number;
  device_memory_samples: number;
  gradients: number;
  edges: number;
  forward_spans: number;
  backward_spans: number;
  optimizer_spans: number;
}

export interface HealthReport {
  /** True iff there is no issue of severity `error`. */
  trusted: boolean;
  issues: HealthIssue[];
  coverage: HealthCoverage;
}

export interface HealthOptions {
  /**
   * How `children_exceed_parent` measures a span's children. `"union"` (default) takes the union
   * of the children's intervals, so concurrent (async, multi-stream) children that overlap are not
   * counted twice; `"reference"` sums their durations like candle-graph 0.7.0 (spec §17 Q1). The two
   * agree whenever siblings do not overlap.
   */
  compat?: "union" | "reference";
}

function error(code: string, message: string, spanId?: string): HealthIssue {
  return spanId === undefined
    ? { severity: "error", code, message }
    : { severity: "error", code, message, span_id: spanId };
}

function warning(code: string, message: string): HealthIssue {
  return { severity: "warning", code, message };
}

export interface SpanCounts {
  roots: number;
  measured: number;
  closed: number;
  forward: number;
  backward: number;
  optimizer: number;
}

/** Steps 1–5 of spec §12.1 over the span records (in id order). */
export function spanStructureIssues(
  spans: readonly SpanRecord[],
  options: HealthOptions,
  issues: HealthIssue[],
  tree: SpanTree = buildSpanTree(spans),
): SpanCounts {
  if (tree.byId.size !== spans.length) {
    issues.push(
      error(
        "duplicate_span_id",
        `span IDs must be unique; found ${spans.length} records but ${tree.byId.size} unique IDs`,
      ),
    );
  }
  const counts: SpanCounts = { roots: 0, measured: 0, closed: 0, forward: 0, backward: 0, optimizer: 0 };
  for (const span of spans) {
    if (span.parent_id === undefined) counts.roots++;
    if (span.measured) counts.measured++;
    if (span.closed) counts.closed++;
    if (span.step === "forward") counts.forward++;
    else if (span.step === "backward") counts.backward++;
    else if (span.step === "optimizer") counts.optimizer++;
  }
  if (counts.roots !== 1)
    issues.push(error("root_count", `expected exactly one root span, found ${counts.roots}`));
  if (counts.measured !== 1) {
    issues.push(error("measurement_count", `expected exactly one measured region, found ${counts.measured}`));
  }

  for (const span of spans) {
    if (!span.closed) issues.push(error("open_span", `span \`${span.id}\` was not closed`, span.id));
    if (span.parent_id !== undefined) {
      const parent = tree.byId.get(span.parent_id);
      if (parent === undefined) {
        issues.push(
          error(
            "unknown_parent",
            `span \`${span.id}\` refers to missing parent \`${span.parent_id}\``,
            span.id,
          ),
        );
      } else {
        const start = u64ToBigInt(span.start_ns);
        const end = spanEnd(span);
        const parentStart = u64ToBigInt(parent.start_ns);
        const parentEnd = spanEnd(parent);
        if (start < parentStart || end > parentEnd) {
          issues.push(
            error(
              "child_outside_parent",
              `span \`${span.id}\` interval ${start}..${end} is outside parent \`${parent.id}\` interval ${parentStart}..${parentEnd}`,
              span.id,
            ),
          );
        }
      }
    }
    if (tree.inCycle.has(span.id)) {
      issues.push(error("span_cycle", `span \`${span.id}\` participates in a parent cycle`, span.id));
    }
  }

  const useUnion = options.compat !== "reference";
  for (const span of spans) {
    const children = tree.children.get(span.id);
    if (children === undefined) continue;
    const covered = useUnion ? unionLength(children) : durationSum(children);
    if (covered > u64ToBigInt(span.duration_ns)) {
      issues.push(
        error(
          "children_exceed_parent",
          `children of span \`${span.id}\` total ${covered} ns, exceeding its ${formatU64(span.duration_ns)} ns duration`,
          span.id,
        ),
      );
    }
  }
  return counts;
}

export function unknownSpanIssue(group: "operation" | "tensor" | "memory", spanId: string): HealthIssue {
  return error("unknown_span", `${group} evidence refers to missing span \`${spanId}\``, spanId);
}

export function unknownEdgeSpanIssue(from: string, to: string): HealthIssue {
  return error("unknown_edge_span", `edge \`${from}\` -> \`${to}\` refers to a missing span`);
}

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

export function healthReport(
  issues: HealthIssue[],
  spanCount: number,
  counts: SpanCounts,
  evidence: Pick<
    HealthCoverage,
    "operations" | "tensors" | "memory_events" | "device_memory_samples" | "gradients" | "edges"
  >,
): HealthReport {
  return {
    trusted: !issues.some((issue) => issue.severity === "error"),
    issues,
    coverage: {
      spans: spanCount,
      closed_spans: counts.closed,
      root_spans: counts.roots,
      measured_spans: counts.measured,
      ...evidence,
      forward_spans: counts.forward,
      backward_spans: counts.backward,
      optimizer_spans: counts.optimizer,
    },
  };
}

/** Step 8/9 of spec §12.1: allocations paired by (device, tensor id), in timestamp order. */
export class AllocationPairing {
  // StringSet, not Set: streaming summaries feed millions of add/delete pairs (see string-set.ts).
  readonly #live = new Map<string, StringSet>();
  #liveCount = 0;

  add(device: string, tensorId: string, action: "alloc" | "free", issues: HealthIssue[]): void {
    let live = this.#live.get(device);
    if (action === "alloc") {
      if (live === undefined) {
        live = new StringSet();
        this.#live.set(device, live);
      }
      if (live.add(tensorId)) {
        this.#liveCount++;
      } else {
        issues.push(
          error("duplicate_allocation", `tensor \`${tensorId}\` was allocated twice without a free`),
        );
      }
    } else if (live?.delete(tensorId)) {
      this.#liveCount--;
    } else {
      issues.push(error("unpaired_free", `tensor \`${tensorId}\` was freed without a live allocation`));
    }
  }

  get liveCount(): number {
    return this.#liveCount;
  }

  finish(issues: HealthIssue[]): void {
    if (this.#liveCount > 0) {
      issues.push(
        warning(
          "retained_allocations",
          `${this.#liveCount} explicit allocations remained live at measurement end`,
        ),
      );
    }
  }
}

export interface PresenceCounts {
  operations: number;
  tensors: number;
  memory: number;
  deviceMemory: number;
  gradients: number;
  forward: number;
  backward: number;
  optimizer: number;
  train: boolean;
}

/** Steps 10–17: evidence gaps. */
export function pushPresenceWarnings(issues: HealthIssue[], counts: PresenceCounts): void {
  if (counts.operations === 0)
    issues.push(warning("operations_absent", "no timed operation evidence was captured"));
  if (counts.tensors === 0) issues.push(warning("tensors_absent", "no tensor checkpoints were captured"));
  if (counts.memory === 0) issues.push(warning("memory_absent", "no tensor memory events were captured"));
  if (counts.deviceMemory === 0) {
    issues.push(warning("device_memory_absent", "no device-memory checkpoints were captured"));
  }
  if (!counts.train) return;
  if (counts.gradients === 0) {
    issues.push(warning("gradients_absent", "no gradient facts were captured for this training run"));
  }
  if (counts.forward === 0) issues.push(warning("forward_absent", "no forward span was tagged"));
  if (counts.backward === 0) issues.push(warning("backward_absent", "no backward span was tagged"));
  if (counts.optimizer === 0) issues.push(warning("optimizer_absent", "no optimizer span was tagged"));
}
