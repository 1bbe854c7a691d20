// Steps 1–5 of spec §12.1 over a document's span records: ids, roots, the measured region, open
// spans, parents, cycles and children that exceed their parent.
import { formatU64, u64ToBigInt } from "@cg/schema";
import {
  healthError as error,
  type HealthIssue,
  type HealthOptions,
  type SpanCounts,
} from "./health-issue.js";
import { buildSpanTree, durationSum, type SpanTree, spanEnd, unionLength } from "./span-tree.js";
import type { SpanRecord } from "./trace-document.js";

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
