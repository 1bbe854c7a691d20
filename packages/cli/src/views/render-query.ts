import { formatU64, type QueryResult, type SpanCost } from "@cg/trace";
import type { Style } from "../format/style.js";
import { renderFacts, renderTable } from "../format/table.js";
import { formatBytesShort, formatDuration } from "../format/units.js";

function spanTable(spans: SpanCost[]): string {
  return renderTable(
    [
      { header: "span" },
      { header: "id" },
      { header: "step" },
      { header: "self", align: "right" },
      { header: "total", align: "right" },
      { header: "op bytes", align: "right" },
    ],
    spans.map((span) => [
      span.name,
      span.id,
      span.step ?? "",
      formatDuration(span.self_ns),
      formatDuration(span.total_ns),
      formatBytesShort(span.op_bytes),
    ]),
  );
}

function opTable(
  ops: { op_name: string; id: string; self_ns: formatU64Input; storage_bytes: formatU64Input }[],
): string {
  return renderTable(
    [
      { header: "op" },
      { header: "id" },
      { header: "time", align: "right" },
      { header: "output", align: "right" },
    ],
    ops.map((op) => [op.op_name, op.id, formatDuration(op.self_ns), formatBytesShort(op.storage_bytes)]),
  );
}
type formatU64Input = Parameters<typeof formatU64>[0];

/** Human-readable tables for each `cg-trace query --kind`. */
export function renderQuery(result: QueryResult, style: Style): string {
  const heading = (text: string): string => `${style.bold(text)}\n`;
  switch (result.kind) {
    case "slowest":
      return (
        `${style.bold("Measured total")}: ${formatDuration(result.total_ns)} (${formatU64(result.total_ns)} ns)\n\n` +
        heading("Slowest spans by self time") +
        spanTable(result.slowest_spans) +
        `\n${heading("Slowest ops")}` +
        opTable(result.slowest_ops)
      );
    case "heaviest":
      return (
        `${style.bold("Peak memory")}: ${formatBytesShort(result.peak_bytes)} (${formatU64(result.peak_bytes)} B)\n\n` +
        heading("Heaviest spans by op output bytes") +
        spanTable(result.heaviest_spans) +
        `\n${heading("Heaviest ops by output bytes")}` +
        opTable(result.heaviest_ops)
      );
    case "efficiency":
      return (
        `${result.note}\n\n` +
        renderTable(
          [
            { header: "op" },
            { header: "id" },
            { header: "bytes/ns", align: "right" },
            { header: "time", align: "right" },
            { header: "output", align: "right" },
          ],
          result.ops.map((op) => [
            op.op_name,
            op.id,
            op.bytes_per_ns.toFixed(3),
            formatDuration(op.self_ns),
            formatBytesShort(op.storage_bytes),
          ]),
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
        renderTable(
          [
            { header: "time", align: "right" },
            { header: "device" },
            { header: "live", align: "right" },
            { header: "by category" },
          ],
          result.timeline.map((point) => [
            formatDuration(point.timestamp_ns),
            point.device,
            formatBytesShort(point.live_bytes),
            Object.entries(point.by_category)
              .map(([category, bytes]) => `${category}=${formatU64(bytes)}`)
              .join(" "),
          ]),
        ) +
        `\n${heading("Live at the peak")}` +
        renderTable(
          [
            { header: "tensor" },
            { header: "category" },
            { header: "op" },
            { header: "bytes", align: "right" },
          ],
          result.peak_breakdown.map((entry) => [
            entry.tensor_id,
            entry.category,
            entry.op_name ?? "",
            formatBytesShort(entry.bytes),
          ]),
        ) +
        `\n${heading("By device")}` +
        renderTable(
          [
            { header: "device" },
            { header: "peak", align: "right" },
            { header: "capacity", align: "right" },
            { header: "allocs", align: "right" },
            { header: "frees", align: "right" },
          ],
          result.by_device.map((device) => [
            device.device,
            formatBytesShort(device.peak_bytes),
            formatBytesShort(device.capacity_bytes),
            String(device.alloc_count),
            String(device.free_count),
          ]),
        )
      );
    case "spans":
      return (
        renderTable(
          [
            { header: "id" },
            { header: "parent" },
            { header: "name" },
            { header: "kind" },
            { header: "step" },
            { header: "start", align: "right" },
            { header: "duration", align: "right" },
            { header: "flags" },
          ],
          result.spans.map((span) => [
            span.id,
            span.parent_id ?? "",
            span.name,
            span.kind,
            span.step ?? "",
            formatDuration(span.start_ns),
            formatDuration(span.duration_ns),
            [span.measured ? "measured" : "", span.closed ? "" : "open"]
              .filter((flag) => flag !== "")
              .join(","),
          ]),
        ) +
        (result.edges.length > 0
          ? `\n${heading("Edges")}${result.edges.map((edge) => `  ${edge.from_span} -> ${edge.to_span} ${formatDuration(edge.duration_ns)}\n`).join("")}`
          : "")
      );
    case "tensors":
      return renderTable(
        [
          { header: "tensor" },
          { header: "span" },
          { header: "shape" },
          { header: "dtype" },
          { header: "device" },
          { header: "category" },
          { header: "grad" },
          { header: "bytes", align: "right" },
        ],
        result.tensors.map((tensor) => [
          tensor.tensor_id,
          tensor.span_id,
          `[${tensor.shape.map((dimension) => formatU64(dimension)).join(",")}]`,
          tensor.dtype,
          tensor.device,
          tensor.category,
          tensor.requires_grad ? "yes" : "",
          formatBytesShort(tensor.storage_bytes),
        ]),
      );
    case "gradients":
      return (
        `${Object.values(result.counts).reduce((sum, count) => sum + count, 0)} gradient facts, ${result.attention_count} need attention (${Object.entries(
          result.counts,
        )
          .map(([state, count]) => `${state} ${count}`)
          .join(", ")})\n` +
        renderTable(
          [
            { header: "event" },
            { header: "parameter" },
            { header: "state" },
            { header: "norm", align: "right" },
          ],
          result.gradients.map((gradient) => [
            gradient.event_id,
            `${gradient.root}/${gradient.key}`,
            gradient.state,
            gradient.norm === undefined ? "-" : String(gradient.norm),
          ]),
        )
      );
  }
}
