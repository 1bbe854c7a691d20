import { formatU64, MEMORY_CATEGORIES } from "@cg/schema/core";
import { escapeControl } from "../format/escape-control.js";
import type { Style } from "../format/style.js";
import { renderColumns, renderFacts } from "../format/table.js";
import { formatBytes, formatBytesShort, formatDuration } from "../format/units.js";
import { renderHealth } from "./render-health.js";
import { renderOperators } from "./render-operators.js";
import type { SummaryView } from "./summary-view.js";

function formatNorm(norm: number | undefined): string {
  if (norm === undefined) return "-";
  return Math.abs(norm) >= 1e-3 || norm === 0 ? norm.toFixed(6) : norm.toExponential(3);
}

/** The human-readable form of `cg-trace summary`. */
export function renderSummary(view: SummaryView, style: Style, limit = 10): string {
  const run = view.provenance;
  const out: string[] = [];
  out.push(`${style.bold("Trace")} ${escapeControl(view.file)}\n`);
  const tags = Object.entries(run.tags)
    .map(([key, value]) => `${key}=${value}`)
    .join(", ");
  out.push(
    renderFacts([
      ["schema", run.schema],
      ["run", run.run_id],
      ["entrypoint", `${run.entrypoint} (${run.phase})`],
      [
        "captured step",
        `${formatU64(run.capture_step)} after ${formatU64(run.warmup_steps)} warm-up step(s)`,
      ],
      ["device", run.device],
      [
        "timing",
        `${run.timing_mode}, measured region synchronized: ${run.measured_region_device_synchronized}`,
      ],
      ["captured at", run.timestamp],
      ["correlation id", run.correlation_id],
      ["tags", tags === "" ? "-" : tags],
    ]),
  );
  out.push(`\n${renderHealth(view.health, style)}`);
  out.push(
    `\n${style.bold("Measured total")}: ${formatDuration(view.measured_total_ns)} (${formatU64(view.measured_total_ns)} ns) over ${view.summary.span_count} spans, ${view.summary.op_count} ops\n`,
  );

  if (view.top_spans.length > 0) {
    out.push(`\n${style.bold(`Top spans by self time`)} (top ${Math.min(limit, view.top_spans.length)})\n`);
    out.push(
      renderColumns(
        [
          { header: "span", cell: (span) => span.name },
          { header: "step", cell: (span) => span.step ?? "" },
          { header: "self", align: "right", cell: (span) => formatDuration(span.self_ns) },
          { header: "total", align: "right", cell: (span) => formatDuration(span.total_ns) },
          { header: "ops", align: "right", cell: (span) => String(span.op_count) },
        ],
        view.top_spans,
      ),
    );
  }
  if (view.top_ops.length > 0) {
    out.push(`\n${style.bold("Top ops by time")} (top ${Math.min(limit, view.top_ops.length)})\n`);
    out.push(
      renderColumns(
        [
          { header: "op", cell: (op) => op.op_name },
          { header: "span", cell: (op) => op.span_id },
          { header: "time", align: "right", cell: (op) => formatDuration(op.self_ns) },
          { header: "output", align: "right", cell: (op) => formatBytesShort(op.storage_bytes) },
          { header: "inputs", align: "right", cell: (op) => formatBytesShort(op.input_storage_bytes) },
        ],
        view.top_ops,
      ),
    );
  }

  if (view.top_operators.operator_count > 0) {
    out.push(`\n${renderOperators(view.top_operators, style, "Top operators by total time")}`);
  }

  const memory = view.memory;
  out.push(`\n${style.bold("Memory")} (explicit alloc/free events)\n`);
  if (memory.alloc_count + memory.free_count === 0) {
    out.push("  no memory events\n");
  } else {
    out.push(
      renderFacts([
        [
          "peak",
          `${formatBytes(memory.peak_bytes)} on ${memory.peak_device} at ${formatDuration(memory.peak_timestamp_ns)}`,
        ],
        [
          "allocations",
          `${memory.alloc_count} allocs, ${memory.free_count} frees, ${formatBytes(memory.total_alloc_bytes)} allocated in total`,
        ],
        ["autograd retained", formatBytes(memory.autograd_retained_bytes)],
      ]),
    );
    const categories = MEMORY_CATEGORIES.filter(
      (category) => memory.peak_by_category[category] !== undefined,
    );
    out.push("  peak by category:\n");
    out.push(
      renderColumns(
        [
          { header: "category", cell: (category) => category },
          {
            header: "bytes",
            align: "right",
            cell: (category) => formatBytesShort(memory.peak_by_category[category]!),
          },
        ],
        categories,
        "    ",
      ),
    );
    if (memory.peak_breakdown.length > 0) {
      const shown = memory.peak_breakdown.slice(0, 5);
      out.push(`  live at the peak (largest ${shown.length} of ${memory.peak_breakdown_total}):\n`);
      out.push(
        renderColumns(
          [
            { header: "tensor", cell: (entry) => entry.tensor_id },
            { header: "category", cell: (entry) => entry.category },
            { header: "op", cell: (entry) => entry.op_name ?? "" },
            { header: "span", cell: (entry) => entry.span_id },
            { header: "bytes", align: "right", cell: (entry) => formatBytesShort(entry.bytes) },
          ],
          shown,
          "    ",
        ),
      );
    }
  }

  out.push(`\n${style.bold("Device memory")} (device_memory checkpoints)\n`);
  if (view.device_memory.length === 0) {
    out.push("  no device-memory checkpoints\n");
  } else {
    out.push(
      renderColumns(
        [
          { header: "device", cell: (device) => device.device },
          { header: "samples", align: "right", cell: (device) => String(device.samples) },
          {
            header: "used (first)",
            align: "right",
            cell: (device) => formatBytesShort(device.first_used_bytes),
          },
          { header: "used (max)", align: "right", cell: (device) => formatBytesShort(device.max_used_bytes) },
          {
            header: "free (last)",
            align: "right",
            cell: (device) => formatBytesShort(device.last_free_bytes),
          },
          { header: "capacity", align: "right", cell: (device) => formatBytesShort(device.capacity_bytes) },
        ],
        view.device_memory,
      ),
    );
  }

  const gradients = view.gradients;
  out.push(
    `\n${style.bold("Gradients")}: ${gradients.count} facts, ${gradients.attention_count} need attention (${Object.entries(
      gradients.counts,
    )
      .map(([state, count]) => `${state} ${count}`)
      .join(", ")})\n`,
  );
  if (gradients.count > 0) {
    const shown = gradients.facts.slice(0, limit);
    out.push(
      renderColumns(
        [
          { header: "parameter", cell: (fact) => `${fact.root}/${fact.key}` },
          {
            header: "state",
            cell: (fact) => (fact.state === "present" ? fact.state : style.warn(fact.state)),
          },
          { header: "norm", align: "right", cell: (fact) => formatNorm(fact.norm) },
        ],
        shown,
      ),
    );
    if (gradients.count > shown.length) out.push(`  … ${gradients.count - shown.length} more (see --json)\n`);
  }
  return out.join("");
}
