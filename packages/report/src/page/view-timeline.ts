// Runs in the report page (inlined through its source text): a zoomable flame chart of the span
// tree on the session clock, with ops drawn in a strip along the bottom of their span.
import type { ReportPayload } from "../report-payload.js";
import type { PageHelpers } from "./page-helpers.js";

export function renderTimeline(container: HTMLElement, payload: ReportPayload, helpers: PageHelpers): void {
  const { element } = helpers;
  const timeline = payload.candidate.timeline;
  const rowHeight = 22;
  const stripHeight = 6;
  const axisHeight = 22;

  const spans = timeline.spans.map((span, index) => {
    const start = helpers.toNumber(span.start_ns);
    return { span, index, start, end: start + helpers.toNumber(span.duration_ns) };
  });
  const ops = timeline.ops.map((op) => {
    const owner = spans[op.span];
    let start = helpers.toNumber(op.timestamp_ns);
    // An op without a timestamp (0) or outside its span is drawn at its span's start.
    if (owner && (start < owner.start || start > owner.end)) start = owner.start;
    return { op, start, end: start + helpers.toNumber(op.duration_ns), depth: owner ? owner.span.depth : 0 };
  });

  if (spans.length === 0) {
    container.append(helpers.section("Timeline", [helpers.note("This trace has no spans.")]));
    return;
  }
  let rangeStart = Number.POSITIVE_INFINITY;
  let rangeEnd = 0;
  let maxDepth = 0;
  for (const item of spans) {
    rangeStart = Math.min(rangeStart, item.start);
    rangeEnd = Math.max(rangeEnd, item.end);
    maxDepth = Math.max(maxDepth, item.span.depth);
  }
  for (const item of ops) rangeEnd = Math.max(rangeEnd, item.end);
  if (rangeEnd <= rangeStart) rangeEnd = rangeStart + 1;

  let viewStart = rangeStart;
  let viewEnd = rangeEnd;
  let selected = -1;

  const notes: HTMLElement[] = [];
  helpers.partNote(
    notes,
    timeline.spans.length,
    timeline.spans_total,
    "Showing {shown} of {total} spans: the upper levels of the tree in full, then the longest spans of the next level.",
  );
  if (timeline.ops_aggregated) {
    notes.push(
      helpers.note(
        helpers.groupDigits(timeline.ops_total) +
          " ops are folded into one mark per span and op name (" +
          helpers.groupDigits(timeline.ops.length) +
          " marks).",
      ),
    );
  }

  const legend = element("ul", { class: "legend" });
  for (const [label, variable] of [
    ["forward", "--step-forward"],
    ["backward", "--step-backward"],
    ["optimizer", "--step-optimizer"],
    ["function", "--span-function"],
    ["module", "--span-module"],
    ["op span", "--span-op"],
    ["ops", "--op-mark"],
  ] as const) {
    const swatch = element("span", { class: "swatch" });
    swatch.style.background = "var(" + variable + ")";
    legend.append(element("li", {}, [swatch, label]));
  }

  const zoomIn = element("button", { type: "button" }, ["Zoom in"]);
  const zoomOut = element("button", { type: "button" }, ["Zoom out"]);
  const reset = element("button", { type: "button" }, ["Reset"]);
  const canvas = element("canvas", {
    tabindex: "0",
    role: "img",
    "data-testid": "flame-chart",
    "aria-label":
      "Flame chart of " +
      spans.length +
      " spans. Arrow keys left and right pan, plus and minus zoom, up and down select a span, Enter zooms to it, 0 resets.",
  });
  const tooltip = element("div", { class: "tooltip", role: "tooltip" });
  tooltip.hidden = true;
  const chart = element("div", { class: "chart-wrap" }, [canvas, tooltip]);
  const details = element("div", { class: "details", "aria-live": "polite", "data-testid": "span-details" }, [
    "Hover or select a span to see its durations.",
  ]);
  container.append(
    helpers.section("Timeline", [
      ...notes,
      element("div", { class: "toolbar" }, [zoomIn, zoomOut, reset, legend]),
      chart,
      details,
    ]),
  );

  function colorOf(item: (typeof spans)[number]): string {
    const span = item.span;
    if (span.step === "forward") return helpers.cssColor("--step-forward");
    if (span.step === "backward") return helpers.cssColor("--step-backward");
    if (span.step === "optimizer") return helpers.cssColor("--step-optimizer");
    if (span.kind === "module") return helpers.cssColor("--span-module");
    if (span.kind === "op") return helpers.cssColor("--span-op");
    return helpers.cssColor("--span-function");
  }

  function spanLines(item: (typeof spans)[number]): string[] {
    const span = item.span;
    const lines = [
      span.name,
      span.kind + (span.step ? " · " + span.step : "") + (span.measured ? " · measured region" : ""),
      "total " + helpers.formatDuration(span.duration_ns) + " · self " + helpers.formatDuration(span.self_ns),
      "start " + helpers.formatDuration(span.start_ns) + " · ops " + helpers.groupDigits(span.op_count),
    ];
    if (!span.closed) lines.push("never closed");
    return lines;
  }

  function opLines(item: (typeof ops)[number]): string[] {
    const op = item.op;
    return [
      op.name + (op.count > 1 ? " ×" + helpers.groupDigits(op.count) : ""),
      "op · " + helpers.formatDuration(op.duration_ns) + (op.count > 1 ? " in total" : ""),
      "output " + helpers.formatBytes(op.storage_bytes),
      "in " + (spans[op.span]?.span.name ?? "?"),
    ];
  }

  function xOf(time: number, width: number): number {
    return ((time - viewStart) / (viewEnd - viewStart)) * width;
  }

  function draw(): void {
    const ratio = window.devicePixelRatio || 1;
    const width = Math.max(200, chart.clientWidth);
    const height = axisHeight + (maxDepth + 1) * rowHeight + 4;
    canvas.style.width = width + "px";
    canvas.style.height = height + "px";
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    const context = canvas.getContext("2d");
    if (!context) return;
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, width, height);
    context.font = "12px system-ui, sans-serif";
    context.textBaseline = "middle";

    // Axis with about eight round ticks.
    const span = viewEnd - viewStart;
    const raw = span / 8;
    const power = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= raw) ?? raw;
    context.fillStyle = helpers.cssColor("--muted");
    context.strokeStyle = helpers.cssColor("--grid");
    for (let tick = Math.ceil(viewStart / step) * step; tick <= viewEnd; tick += step) {
      const x = xOf(tick, width);
      context.beginPath();
      context.moveTo(x + 0.5, axisHeight - 4);
      context.lineTo(x + 0.5, height);
      context.stroke();
      context.fillText(helpers.formatDuration(Math.round(tick)), x + 3, axisHeight / 2);
    }

    const textColor = helpers.cssColor("--on-bar");
    for (const item of spans) {
      if (item.end < viewStart || item.start > viewEnd) continue;
      const x = xOf(item.start, width);
      const barWidth = Math.max(1, xOf(item.end, width) - x);
      const y = axisHeight + item.span.depth * rowHeight;
      context.fillStyle = colorOf(item);
      context.fillRect(x, y, barWidth, rowHeight - 2);
      if (item.span.measured || item.index === selected || !item.span.closed) {
        context.strokeStyle = helpers.cssColor(item.index === selected ? "--selection" : "--measured");
        context.lineWidth = 2;
        context.setLineDash(item.span.closed ? [] : [4, 3]);
        context.strokeRect(x + 1, y + 1, Math.max(0, barWidth - 2), rowHeight - 4);
        context.setLineDash([]);
        context.lineWidth = 1;
      }
      if (barWidth > 40) {
        context.save();
        context.beginPath();
        context.rect(x, y, barWidth, rowHeight - stripHeight);
        context.clip();
        context.fillStyle = textColor;
        const left = Math.max(x, 0) + 4;
        context.fillText(item.span.name, left, y + (rowHeight - stripHeight) / 2);
        context.restore();
      }
    }
    context.fillStyle = helpers.cssColor("--op-mark");
    for (const item of ops) {
      if (item.end < viewStart || item.start > viewEnd) continue;
      const x = xOf(item.start, width);
      const markWidth = Math.max(1, xOf(item.end, width) - x);
      const y = axisHeight + item.depth * rowHeight + rowHeight - 2 - stripHeight;
      context.fillRect(x, y, markWidth, stripHeight);
    }
  }

  type Hit = { kind: "span"; item: (typeof spans)[number] } | { kind: "op"; item: (typeof ops)[number] };

  function hitAt(clientX: number, clientY: number): Hit | null {
    const bounds = canvas.getBoundingClientRect();
    const x = clientX - bounds.left;
    const y = clientY - bounds.top - axisHeight;
    if (y < 0) return null;
    const depth = Math.floor(y / rowHeight);
    const inStrip = y - depth * rowHeight >= rowHeight - 2 - stripHeight;
    const width = bounds.width;
    const tolerance = ((viewEnd - viewStart) / width) * 2;
    const time = viewStart + (x / width) * (viewEnd - viewStart);
    if (inStrip) {
      for (const item of ops) {
        if (item.depth === depth && time >= item.start - tolerance && time <= item.end + tolerance) {
          return { kind: "op", item };
        }
      }
    }
    let best: (typeof spans)[number] | null = null;
    for (const item of spans) {
      if (item.span.depth !== depth) continue;
      if (time >= item.start - tolerance && time <= item.end + tolerance) {
        if (!best || item.end - item.start < best.end - best.start) best = item;
      }
    }
    return best ? { kind: "span", item: best } : null;
  }

  function showDetails(lines: string[]): void {
    details.replaceChildren(
      // spread-ok: a tooltip's few lines
      ...lines.map((line, index) => element(index === 0 ? "strong" : "div", {}, [line])),
    );
  }

  function zoom(factor: number, anchorFraction: number): void {
    const span = viewEnd - viewStart;
    const nextSpan = Math.min(rangeEnd - rangeStart, Math.max(10, span * factor));
    const anchor = viewStart + span * anchorFraction;
    viewStart = anchor - nextSpan * anchorFraction;
    viewEnd = viewStart + nextSpan;
    clampView();
    draw();
  }

  function pan(fraction: number): void {
    const shift = (viewEnd - viewStart) * fraction;
    viewStart += shift;
    viewEnd += shift;
    clampView();
    draw();
  }

  function clampView(): void {
    const span = viewEnd - viewStart;
    if (viewStart < rangeStart) {
      viewStart = rangeStart;
      viewEnd = rangeStart + span;
    }
    if (viewEnd > rangeEnd) {
      viewEnd = rangeEnd;
      viewStart = Math.max(rangeStart, rangeEnd - span);
    }
  }

  function selectSpan(index: number): void {
    const item = spans[index];
    if (!item) return;
    selected = index;
    showDetails(spanLines(item));
    draw();
  }

  // Keyboard order: spans by start time, then depth.
  const order = spans
    .slice()
    .sort((a, b) => a.start - b.start || a.span.depth - b.span.depth)
    .map((item) => item.index);

  canvas.addEventListener("keydown", (event) => {
    const position = order.indexOf(selected);
    let handled = true;
    if (event.key === "+" || event.key === "=") zoom(0.5, 0.5);
    else if (event.key === "-" || event.key === "_") zoom(2, 0.5);
    else if (event.key === "ArrowLeft") pan(-0.2);
    else if (event.key === "ArrowRight") pan(0.2);
    else if (event.key === "0") {
      viewStart = rangeStart;
      viewEnd = rangeEnd;
      draw();
    } else if (event.key === "ArrowDown") selectSpan(order[Math.min(order.length - 1, position + 1)] ?? 0);
    else if (event.key === "ArrowUp") selectSpan(order[Math.max(0, position - 1)] ?? 0);
    else if (event.key === "Enter" && spans[selected]) {
      const item = spans[selected]!;
      const margin = Math.max(10, (item.end - item.start) * 0.05);
      viewStart = item.start - margin;
      viewEnd = item.end + margin;
      clampView();
      draw();
    } else handled = false;
    if (handled) event.preventDefault();
  });

  canvas.addEventListener(
    "wheel",
    (event) => {
      event.preventDefault();
      const bounds = canvas.getBoundingClientRect();
      zoom(Math.exp(event.deltaY * 0.002), (event.clientX - bounds.left) / bounds.width);
    },
    { passive: false },
  );

  let dragFrom: { x: number; start: number; end: number } | null = null;
  let dragged = false;
  canvas.addEventListener("pointerdown", (event) => {
    dragFrom = { x: event.clientX, start: viewStart, end: viewEnd };
    dragged = false;
    canvas.setPointerCapture(event.pointerId);
  });
  canvas.addEventListener("pointerup", (event) => {
    canvas.releasePointerCapture(event.pointerId);
    if (!dragged) {
      const hit = hitAt(event.clientX, event.clientY);
      if (hit?.kind === "span") selectSpan(hit.item.index);
      else if (hit?.kind === "op") showDetails(opLines(hit.item));
    }
    dragFrom = null;
  });
  canvas.addEventListener("pointermove", (event) => {
    if (dragFrom) {
      const bounds = canvas.getBoundingClientRect();
      const shift = ((dragFrom.x - event.clientX) / bounds.width) * (dragFrom.end - dragFrom.start);
      if (Math.abs(dragFrom.x - event.clientX) > 3) dragged = true;
      if (dragged) {
        viewStart = dragFrom.start + shift;
        viewEnd = dragFrom.end + shift;
        clampView();
        draw();
        return;
      }
    }
    const hit = hitAt(event.clientX, event.clientY);
    if (!hit) {
      tooltip.hidden = true;
      return;
    }
    const lines = hit.kind === "span" ? spanLines(hit.item) : opLines(hit.item);
    tooltip.replaceChildren(
      // spread-ok: a tooltip's few lines
      ...lines.map((line, index) => element(index === 0 ? "strong" : "div", {}, [line])),
    );
    tooltip.hidden = false;
    const bounds = chart.getBoundingClientRect();
    const left = Math.min(event.clientX - bounds.left + 12, bounds.width - 260);
    tooltip.style.left = Math.max(0, left) + "px";
    tooltip.style.top = event.clientY - bounds.top + 16 + "px";
  });
  canvas.addEventListener("pointerleave", () => {
    tooltip.hidden = true;
  });

  zoomIn.addEventListener("click", () => zoom(0.5, 0.5));
  zoomOut.addEventListener("click", () => zoom(2, 0.5));
  reset.addEventListener("click", () => {
    viewStart = rangeStart;
    viewEnd = rangeEnd;
    draw();
  });
  window.addEventListener("resize", draw);
  window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", draw);
  draw();
}
