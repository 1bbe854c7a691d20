import type { MemoryAnalysis } from "@cg/memory";
import type { TraceDocument } from "@cg/parser";
import { downsampleByMaximum } from "./downsample.js";
import { approximate, toExact } from "./exact-number.js";
import type { ReportLimits } from "./report-limits.js";
import type { DeviceMemorySeries, MemoryReport, MemorySeries } from "./report-payload.js";

function categoryEntries(map: MemoryAnalysis["peak_by_category"]): Array<[string, number | string]> {
  return Object.entries(map).map(([category, bytes]) => [category, toExact(bytes ?? 0)]);
}

function groupByDevice<Item extends { device: string }>(items: readonly Item[]): Map<string, Item[]> {
  const groups = new Map<string, Item[]>();
  for (const item of items) {
    const group = groups.get(item.device);
    if (group === undefined) groups.set(item.device, [item]);
    else group.push(item);
  }
  return groups;
}

/** The memory view from the analysis of @cg/memory, with long series downsampled. */
export function buildMemoryReport(
  document: TraceDocument,
  analysis: MemoryAnalysis,
  limits: ReportLimits,
): MemoryReport {
  const spanNames = new Map(document.spans.map((span) => [span.id, span.name]));
  const series: MemorySeries[] = [];
  for (const [device, points] of [...groupByDevice(analysis.timeline)].sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  )) {
    const kept = downsampleByMaximum(points, limits.memoryPoints, (point) => approximate(point.live_bytes));
    series.push({
      device,
      points_total: points.length,
      points: kept.map((point) => ({
        timestamp_ns: toExact(point.timestamp_ns),
        live_bytes: toExact(point.live_bytes),
        by_category: categoryEntries(point.by_category),
      })),
    });
  }
  const deviceMemory: DeviceMemorySeries[] = [];
  for (const [device, samples] of groupByDevice(document.device_memory)) {
    const kept = downsampleByMaximum(samples, limits.memoryPoints, (sample) =>
      approximate(sample.used_bytes),
    );
    deviceMemory.push({
      device,
      points_total: samples.length,
      points: kept.map((sample) => {
        const point: DeviceMemorySeries["points"][number] = {
          timestamp_ns: toExact(sample.timestamp_ns),
          used_bytes: toExact(sample.used_bytes),
          free_bytes: toExact(sample.free_bytes),
        };
        if (sample.reserved_bytes !== undefined) point.reserved_bytes = toExact(sample.reserved_bytes);
        return point;
      }),
    });
  }
  return {
    peak_bytes: toExact(analysis.peak_bytes),
    peak_timestamp_ns: toExact(analysis.peak_timestamp_ns),
    peak_device: analysis.peak_device,
    peak_by_category: categoryEntries(analysis.peak_by_category),
    total_alloc_bytes: toExact(analysis.total_alloc_bytes),
    autograd_retained_bytes: toExact(analysis.autograd_retained_bytes),
    by_device: analysis.by_device.map((device) => ({
      device: device.device,
      capacity_bytes: toExact(device.capacity_bytes),
      peak_bytes: toExact(device.peak_bytes),
      peak_timestamp_ns: toExact(device.peak_timestamp_ns),
      alloc_count: device.alloc_count,
      free_count: device.free_count,
    })),
    series,
    peak_allocations_total: analysis.peak_breakdown.length,
    peak_allocations: analysis.peak_breakdown.slice(0, limits.peakAllocations).map((allocation) => {
      const row: MemoryReport["peak_allocations"][number] = {
        tensor_id: allocation.tensor_id,
        device: allocation.device,
        bytes: toExact(allocation.bytes),
        category: allocation.category,
        span: spanNames.get(allocation.span_id) ?? allocation.span_id,
      };
      if (allocation.op_name !== undefined) row.op_name = allocation.op_name;
      return row;
    }),
    device_memory: deviceMemory,
  };
}
