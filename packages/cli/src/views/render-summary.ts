import { formatU64, MEMORY_CATEGORIES } from "@cg/trace";
import { escapeControl } from "../format/escape-control.js";
import type { Style } from "../format/style.js";
import { renderFacts, renderTable } from "../format/table.js";
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
      renderTable(
        [
          { header: "span" },
          { header: "step" },
          { header: "self", align: "right" },
          { header: "total", align: "right" },
          { header: "ops", align: "right" },
        ],
        view.top_spans.map((span) => [
          span.name,
          span.step ?? "",
          formatDuration(span.self_ns),
          formatDuration(span.total_ns),
          String(span.op_count),
        ]),
      ),
    );
  }
  if (view.top_ops.length > 0) {
    out.push(`\n${style.bold("Top ops by time")} (top ${Math.min(limit, view.top_ops.length)})\n`);
    out.push(
      renderTable(
        [
          { header: "op" },
          { header: "span" },
          { header: "time", align: "right" },
          { header: "output", align: "right" },
          { header: "inputs", align: "right" },
        ],
        view.top_ops.map((op) => [
          op.op_name,
          op.span_id,
          formatDuration(op.self_ns),
          formatBytesShort(op.storage_bytes),
          formatBytesShort(op.input_storage_bytes),
        ]),
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
      renderTable(
        [{ header: "category" }, { header: "bytes", align: "right" }],
        categories.map((category) => [category, formatBytesShort(memory.peak_by_category[category]!)]),
        "    ",
      ),
    );
    if (memory.peak_breakdown.length > 0) {
      const shown = memory.peak_breakdown.slice(0, 5);
      out.push(`  live at the peak (largest ${shown.length} of ${memory.peak_breakdown_total}):\n`);
      out.push(
        renderTable(
          [
            { header: "tensor" },
            { header: "category" },
            { header: "op" },
            { header: "span" },
            { header: "bytes", align: "right" },
          ],
          shown.map((entry) => [
            entry.tensor_id,
            entry.category,
            entry.op_name ?? "",
            entry.span_id,
            formatBytesShort(entry.bytes),
          ]),
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
      renderTable(
        [
          { header: "device" },
          { header: "samples", align: "right" },
          { header: "used (first)", align: "right" },
          { header: "used (max)", align: "right" },
          { header: "free (last)", align: "right" },
          { header: "capacity", align: "right" },
        ],
        view.device_memory.map((device) => [
          device.device,
          String(device.samples),
          formatBytesShort(device.first_used_bytes),
          formatBytesShort(device.max_used_bytes),
          formatBytesShort(device.last_free_bytes),
          formatBytesShort(device.capacity_bytes),
        ]),
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
      renderTable(
        [{ header: "parameter" }, { header: "state" }, { header: "norm", align: "right" }],
        shown.map((fact) => [
          `${fact.root}/${fact.key}`,
          fact.state === "present" ? fact.state : style.warn(fact.state),
          formatNorm(fact.norm),
        ]),
      ),
    );
    if (gradients.count > shown.length) out.push(`  … ${gradients.count - shown.length} more (see --json)\n`);
  }
  return out.join("");
}
