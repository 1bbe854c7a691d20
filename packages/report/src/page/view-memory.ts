// Runs in the report page (inlined through its source text): the logical memory timeline stacked by
// category with the peak marked, live allocations at the peak, and device memory samples.
import type { DeviceSummaryRow, LiveAllocationRow, ReportPayload } from "../report-payload.js";
import type { PageHelpers } from "./page-helpers.js";

export function renderMemory(container: HTMLElement, payload: ReportPayload, helpers: PageHelpers): void {
  const { element, svg } = helpers;
  const memory = payload.candidate.memory;
  const categories = ["parameter", "optimizer", "gradient", "activation", "other"];
  const chartHeight = 260;
  const margin = { left: 76, right: 16, top: 14, bottom: 28 };

  function frame(width: number, label: string, testId: string): SVGElement {
    return svg("svg", {
      width: String(width),
      height: String(chartHeight),
      viewBox: "0 0 " + width + " " + chartHeight,
      role: "img",
      "aria-label": label,
      "data-testid": testId,
      class: "chart",
    });
  }

  function axes(
    root: SVGElement,
    width: number,
    xRange: [number, number],
    yMax: number,
    formatY: (value: number) => string,
  ): void {
    const plotHeight = chartHeight - margin.top - margin.bottom;
    for (let tick = 0; tick <= 4; tick += 1) {
      const y = margin.top + plotHeight - (plotHeight * tick) / 4;
      root.append(
        svg("line", {
          x1: String(margin.left),
          x2: String(width - margin.right),
          y1: String(y),
          y2: String(y),
          class: "grid",
        }),
      );
      const text = svg("text", {
        x: String(margin.left - 6),
        y: String(y + 4),
        "text-anchor": "end",
        class: "axis",
      });
      text.textContent = formatY((yMax * tick) / 4);
      root.append(text);
    }
    for (let tick = 0; tick <= 4; tick += 1) {
      const x = margin.left + ((width - margin.left - margin.right) * tick) / 4;
      const anchor = tick === 0 ? "start" : tick === 4 ? "end" : "middle";
      const text = svg("text", {
        x: String(x),
        y: String(chartHeight - 8),
        "text-anchor": anchor,
        class: "axis",
      });
      text.textContent = helpers.formatDuration(Math.round(xRange[0] + ((xRange[1] - xRange[0]) * tick) / 4));
      root.append(text);
    }
  }

  const summary = element("dl", { class: "facts", "data-testid": "memory-summary" }, []);
  const facts: Array<[string, string]> = [
    [
      "Peak",
      helpers.formatBytes(memory.peak_bytes) + " (" + helpers.groupDigits(memory.peak_bytes) + " bytes)",
    ],
    ["Peak device", memory.peak_device === "" ? "—" : memory.peak_device],
    ["Peak at", helpers.formatDuration(memory.peak_timestamp_ns)],
    ["Allocated in total", helpers.formatBytes(memory.total_alloc_bytes)],
    ["Retained by autograd", helpers.formatBytes(memory.autograd_retained_bytes)],
  ];
  for (const [category, bytes] of memory.peak_by_category) {
    facts.push(["At peak: " + category, helpers.formatBytes(bytes)]);
  }
  for (const [term, value] of facts) summary.append(element("dt", {}, [term]), element("dd", {}, [value]));
  container.append(helpers.section("Logical memory", [summary]));

  const width = Math.max(360, container.clientWidth - 40);
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = chartHeight - margin.top - margin.bottom;

  if (memory.series.length === 0) {
    container.append(helpers.section("Memory timeline", [helpers.note("This trace has no memory events.")]));
  } else {
    const picker = element("select", { "aria-label": "Device" });
    for (const series of memory.series)
      picker.append(element("option", { value: series.device }, [series.device]));
    const peakSeries = memory.series.find((series) => series.device === memory.peak_device);
    picker.value = (peakSeries ?? memory.series[0])?.device ?? "";
    const holder = element("div", { class: "chart-wrap" });
    const readout = element("div", { class: "details", "aria-live": "polite" }, [
      "Hover the chart for values.",
    ]);
    const legend = element("ul", { class: "legend" });
    for (const category of categories) {
      const swatch = element("span", { class: "swatch" });
      swatch.style.background = "var(--cat-" + category + ")";
      legend.append(element("li", {}, [swatch, category]));
    }
    const notes: HTMLElement[] = [];

    function drawSeries(): void {
      const series = memory.series.find((candidate) => candidate.device === picker.value);
      if (!series) return;
      for (const note of notes) note.remove();
      notes.length = 0;
      const points = series.points.map((point) => {
        const values = new Map(point.by_category.map(([name, bytes]) => [name, helpers.toNumber(bytes)]));
        return {
          point,
          time: helpers.toNumber(point.timestamp_ns),
          live: helpers.toNumber(point.live_bytes),
          values,
        };
      });
      const first = points[0]?.time ?? 0;
      let last = points[points.length - 1]?.time ?? 1;
      if (last <= first) last = first + 1;
      let yMax = 1;
      for (const item of points) {
        let stacked = 0;
        for (const value of item.values.values()) stacked += value;
        yMax = Math.max(yMax, item.live, stacked);
      }
      const xOf = (time: number) => margin.left + ((time - first) / (last - first)) * plotWidth;
      const yOf = (value: number) => margin.top + plotHeight - (value / yMax) * plotHeight;
      const root = frame(
        width,
        "Live bytes on " + series.device + " over time, stacked by category",
        "memory-chart",
      );
      axes(root, width, [first, last], yMax, (value) => helpers.formatBytes(Math.round(value)));
      const lower = points.map(() => 0);
      for (const category of categories) {
        const upper = points.map((item, index) => (lower[index] ?? 0) + (item.values.get(category) ?? 0));
        if (upper.every((value, index) => value === lower[index])) continue;
        let outline = "";
        points.forEach((item, index) => {
          const nextTime = points[index + 1]?.time ?? last;
          outline += (index === 0 ? "M" : "L") + xOf(item.time) + " " + yOf(upper[index] ?? 0);
          outline += "L" + xOf(nextTime) + " " + yOf(upper[index] ?? 0);
        });
        for (let index = points.length - 1; index >= 0; index -= 1) {
          const item = points[index]!;
          const nextTime = points[index + 1]?.time ?? last;
          outline += "L" + xOf(nextTime) + " " + yOf(lower[index] ?? 0);
          outline += "L" + xOf(item.time) + " " + yOf(lower[index] ?? 0);
        }
        const area = svg("path", { d: outline + "Z", class: "area" });
        area.style.fill = "var(--cat-" + category + ")";
        root.append(area);
        upper.forEach((value, index) => {
          lower[index] = value;
        });
      }
      if (series.device === memory.peak_device && helpers.toNumber(memory.peak_bytes) > 0) {
        const x = xOf(helpers.toNumber(memory.peak_timestamp_ns));
        const y = yOf(helpers.toNumber(memory.peak_bytes));
        root.append(
          svg("line", {
            x1: String(x),
            x2: String(x),
            y1: String(margin.top),
            y2: String(margin.top + plotHeight),
            class: "peak",
          }),
        );
        root.append(svg("circle", { cx: String(x), cy: String(y), r: "4", class: "peak-dot" }));
        const label = svg("text", {
          x: String(Math.min(x + 6, width - 150)),
          y: String(margin.top + 12),
          class: "peak-label",
          "data-testid": "peak-label",
        });
        label.textContent = "peak " + helpers.formatBytes(memory.peak_bytes);
        root.append(label);
      }
      root.addEventListener("mousemove", (event) => {
        const bounds = root.getBoundingClientRect();
        const time = first + ((event.clientX - bounds.left - margin.left) / plotWidth) * (last - first);
        let nearest = points[0];
        for (const item of points) if (item.time <= time) nearest = item;
        if (!nearest) return;
        const parts = [
          helpers.formatDuration(nearest.point.timestamp_ns),
          "live " + helpers.formatBytes(nearest.live),
        ];
        for (const [category, bytes] of nearest.point.by_category) {
          if (helpers.toNumber(bytes) > 0) parts.push(category + " " + helpers.formatBytes(bytes));
        }
        readout.textContent = parts.join(" · ");
      });
      holder.replaceChildren(root);
      const note = helpers.partNote(
        notes,
        series.points.length,
        series.points_total,
        "Downsampled to {shown} of {total} points; each kept point is the highest in its interval, so peaks stay visible.",
      );
      if (note !== undefined) holder.before(note);
    }

    picker.addEventListener("change", drawSeries);
    container.append(
      helpers.section("Memory timeline", [
        element("div", { class: "toolbar" }, [element("label", {}, ["Device ", picker]), legend]),
        holder,
        readout,
      ]),
    );
    drawSeries();
  }

  const allocations = helpers.table<LiveAllocationRow>(
    [
      helpers.textColumn("Tensor", (row) => row.tensor_id),
      helpers.textColumn("Device", (row) => row.device),
      helpers.textColumn("Category", (row) => row.category),
      helpers.numberColumn("Bytes", (row) => row.bytes, helpers.groupDigits),
      { label: "Op", text: (row) => row.op_name ?? "" },
      { label: "Span", text: (row) => row.span ?? "" },
    ],
    memory.peak_allocations,
    { caption: "Live allocations at the peak", initialSort: 3, initialDescending: true },
  );
  allocations.setAttribute("data-testid", "peak-allocations");
  const allocationChildren: Array<Node | string> = [];
  helpers.partNote(
    allocationChildren,
    memory.peak_allocations.length,
    memory.peak_allocations_total,
    "The {shown} largest of {total} live allocations.",
  );
  allocationChildren.push(
    memory.peak_allocations_total > 0 ? allocations : helpers.note("Nothing was live at the peak."),
  );
  container.append(helpers.section("At the peak", allocationChildren));

  if (memory.by_device.length > 0) {
    const devices = helpers.table<DeviceSummaryRow>(
      [
        helpers.textColumn("Device", (row) => row.device),
        { label: "Peak", text: (row) => helpers.formatBytes(row.peak_bytes), numeric: true },
        { label: "Capacity", text: (row) => helpers.formatBytes(row.capacity_bytes), numeric: true },
        { label: "Allocs", text: (row) => helpers.groupDigits(row.alloc_count), numeric: true },
        { label: "Frees", text: (row) => helpers.groupDigits(row.free_count), numeric: true },
      ],
      memory.by_device,
      { caption: "Per device" },
    );
    container.append(helpers.section("Devices", [devices]));
  }

  const deviceChildren: Array<Node | string> = [];
  if (memory.device_memory.length === 0) {
    deviceChildren.push(helpers.note("No device-memory checkpoints were captured."));
  }
  for (const series of memory.device_memory) {
    const points = series.points.map((point) => ({
      time: helpers.toNumber(point.timestamp_ns),
      used: helpers.toNumber(point.used_bytes),
      free: helpers.toNumber(point.free_bytes),
      reserved: point.reserved_bytes === undefined ? null : helpers.toNumber(point.reserved_bytes),
    }));
    const first = points[0]?.time ?? 0;
    let last = points[points.length - 1]?.time ?? first + 1;
    if (last <= first) last = first + 1;
    let yMax = 1;
    for (const point of points) yMax = Math.max(yMax, point.used, point.free, point.reserved ?? 0);
    const xOf = (time: number) => margin.left + ((time - first) / (last - first)) * plotWidth;
    const yOf = (value: number) => margin.top + plotHeight - (value / yMax) * plotHeight;
    const root = frame(width, "Device memory of " + series.device, "device-memory-chart");
    axes(root, width, [first, last], yMax, (value) => helpers.formatBytes(Math.round(value)));
    const lines: Array<["used" | "free" | "reserved", string]> = [
      ["used", "--device-used"],
      ["free", "--device-free"],
      ["reserved", "--device-reserved"],
    ];
    const legend = element("ul", { class: "legend" });
    for (const [key, variable] of lines) {
      const values = points.filter((point) => point[key] !== null);
      if (values.length === 0) continue;
      const swatch = element("span", { class: "swatch" });
      swatch.style.background = "var(" + variable + ")";
      legend.append(element("li", {}, [swatch, key]));
      const d = values
        .map((point, index) => (index === 0 ? "M" : "L") + xOf(point.time) + " " + yOf(point[key] ?? 0))
        .join("");
      const path = svg("path", { d, class: "line" });
      path.style.stroke = "var(" + variable + ")";
      root.append(path);
      for (const point of values) {
        const dot = svg("circle", { cx: String(xOf(point.time)), cy: String(yOf(point[key] ?? 0)), r: "3" });
        dot.style.fill = "var(" + variable + ")";
        root.append(dot);
      }
    }
    deviceChildren.push(element("h3", {}, [series.device]), legend, root);
    helpers.partNote(
      deviceChildren,
      series.points.length,
      series.points_total,
      "Sampled {shown} of {total} checkpoints.",
    );
  }
  container.append(helpers.section("Device memory", deviceChildren));
}
