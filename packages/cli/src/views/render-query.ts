import type { QueryResult, SpanCost } from "@cg/parser";
import { formatU64 } from "@cg/schema/core";
import type { Style } from "../format/style.js";
import { renderColumns, renderFacts } from "../format/table.js";
import { formatBytesShort, formatDuration } from "../format/units.js";

function spanTable(spans: SpanCost[]): string {
  return renderColumns(
    [
      { header: "span", cell: (span) => span.name },
      { header: "id", cell: (span) => span.id },
      { header: "step", cell: (span) => span.step ?? "" },
      { header: "self", align: "right", cell: (span) => formatDuration(span.self_ns) },
      { header: "total", align: "right", cell: (span) => formatDuration(span.total_ns) },
      { header: "op bytes", align: "right", cell: (span) => formatBytesShort(span.op_bytes) },
    ],
    spans,
  );
}

type RankedOp = { op_name: string; id: string; self_ns: formatU64Input; storage_bytes: formatU64Input };

function opTable(ops: RankedOp[]): string {
  return renderColumns(
    [
      { header: "op", cell: (op) => op.op_name },
      { header: "id", cell: (op) => op.id },
      { header: "time", align: "right", cell: (op) => formatDuration(op.self_ns) },
      { header: "output", align: "right", cell: (op) => formatBytesShort(op.storage_bytes) },
    ],
    ops,
  );
}
type formatU64Input = Parameters<typeof formatU64>[0];

/** Human-readable tables for each `cg-trace query --kind`. */
export function renderQuery(result: QueryResult, style: Style): string {
  const heading = (text: string): string => `${style.bold(text)}\n`;
  const headline = (label: string, value: string, exact: string): string =>
    `${style.bold(label)}: ${value} (${exact})\n\n`;
  // The ranked kinds: the spans, then the ops, each under its heading.
  const rankedTables = (spansHeading: string, spans: SpanCost[], opsHeading: string, ops: RankedOp[]) =>
    `${heading(spansHeading)}${spanTable(spans)}\n${heading(opsHeading)}${opTable(ops)}`;
  switch (result.kind) {
    case "slowest":
      return (
        headline("Measured total", formatDuration(result.total_ns), `${formatU64(result.total_ns)} ns`) +
        rankedTables("Slowest spans by self time", result.slowest_spans, "Slowest ops", result.slowest_ops)
      );
    case "heaviest":
      return (
        headline("Peak memory", formatBytesShort(result.peak_bytes), `${formatU64(result.peak_bytes)} B`) +
        rankedTables(
          "Heaviest spans by op output bytes",
          result.heaviest_spans,
          "Heaviest ops by output bytes",
          result.heaviest_ops,
        )
      );
    case "efficiency":
      return (
        `${result.note}\n\n` +
        renderColumns(
          [
            { header: "op", cell: (op) => op.op_name },
            { header: "id", cell: (op) => op.id },
            { header: "bytes/ns", align: "right", cell: (op) => op.bytes_per_ns.toFixed(3) },
            { header: "time", align: "right", cell: (op) => formatDuration(op.self_ns) },
            { header: "output", align: "right", cell: (op) => formatBytesShort(op.storage_bytes) },
          ],
          result.ops,
        )
      );
    case "memory":
      return (
        renderFacts([
          [
            "peak",
            `${formatBytesShort(result.summary.peak_bytes)} on ${result.summary.peak_device || "-"} at ${formatDuration(result.summary.peak_timestamp_ns)}`,
          ],
          ["allocs / frees", `${result.summary.alloc_count} / ${result.summary.free_count}`],
          ["autograd retained", formatBytesShort(result.summary.autograd_retained_bytes)],
        ]) +
        `\n${heading("Timeline")}` +
        renderColumns(
          [
            { header: "time", align: "right", cell: (point) => formatDuration(point.timestamp_ns) },
            { header: "device", cell: (point) => point.device },
            { header: "live", align: "right", cell: (point) => formatBytesShort(point.live_bytes) },
            {
              header: "by category",
              cell: (point) =>
                Object.entries(point.by_category)
                  .map(([category, bytes]) => `${category}=${formatU64(bytes)}`)
                  .join(" "),
            },
          ],
          result.timeline,
        ) +
        `\n${heading("Live at the peak")}` +
        renderColumns(
          [
            { header: "tensor", cell: (entry) => entry.tensor_id },
            { header: "category", cell: (entry) => entry.category },
            { header: "op", cell: (entry) => entry.op_name ?? "" },
            { header: "bytes", align: "right", cell: (entry) => formatBytesShort(entry.bytes) },
          ],
          result.peak_breakdown,
        ) +
        `\n${heading("By device")}` +
        renderColumns(
          [
            { header: "device", cell: (device) => device.device },
            { header: "peak", align: "right", cell: (device) => formatBytesShort(device.peak_bytes) },
            { header: "capacity", align: "right", cell: (device) => formatBytesShort(device.capacity_bytes) },
            { header: "allocs", align: "right", cell: (device) => String(device.alloc_count) },
            { header: "frees", align: "right", cell: (device) => String(device.free_count) },
          ],
          result.by_device,
        )
      );
    case "spans":
      return (
        renderColumns(
          [
            { header: "id", cell: (span) => span.id },
            { header: "parent", cell: (span) => span.parent_id ?? "" },
            { header: "name", cell: (span) => span.name },
            { header: "kind", cell: (span) => span.kind },
            { header: "step", cell: (span) => span.step ?? "" },
            { header: "start", align: "right", cell: (span) => formatDuration(span.start_ns) },
            { header: "duration", align: "right", cell: (span) => formatDuration(span.duration_ns) },
            {
              header: "flags",
              cell: (span) =>
                [span.measured ? "measured" : "", span.closed ? "" : "open"]
                  .filter((flag) => flag !== "")
                  .join(","),
            },
          ],
          result.spans,
        ) +
        (result.edges.length > 0
          ? `\n${heading("Edges")}${result.edges.map((edge) => `  ${edge.from_span} -> ${edge.to_span} ${formatDuration(edge.duration_ns)}\n`).join("")}`
          : "")
      );
    case "tensors":
      return renderColumns(
        [
          { header: "tensor", cell: (tensor) => tensor.tensor_id },
          { header: "span", cell: (tensor) => tensor.span_id },
          {
            header: "shape",
            cell: (tensor) => `[${tensor.shape.map((dimension) => formatU64(dimension)).join(",")}]`,
          },
          { header: "dtype", cell: (tensor) => tensor.dtype },
          { header: "device", cell: (tensor) => tensor.device },
          { header: "category", cell: (tensor) => tensor.category },
          { header: "grad", cell: (tensor) => (tensor.requires_grad ? "yes" : "") },
          { header: "bytes", align: "right", cell: (tensor) => formatBytesShort(tensor.storage_bytes) },
        ],
        result.tensors,
      );
    case "gradients":
      return (
        `${Object.values(result.counts).reduce((sum, count) => sum + count, 0)} gradient facts, ${result.attention_count} need attention (${Object.entries(
          result.counts,
        )
          .map(([state, count]) => `${state} ${count}`)
          .join(", ")})\n` +
        renderColumns(
          [
            { header: "event", cell: (gradient) => gradient.event_id },
            { header: "parameter", cell: (gradient) => `${gradient.root}/${gradient.key}` },
            { header: "state", cell: (gradient) => gradient.state },
            {
              header: "norm",
              align: "right",
              cell: (gradient) => (gradient.norm === undefined ? "-" : String(gradient.norm)),
            },
          ],
          result.gradients,
        )
      );
  }
}
