import type { MemoryAnalysis } from "@cg/memory";
import { compareCodePoints } from "@cg/schema/core";
import { toExact } from "./exact-number.js";
import type { ReportLimits } from "./report-limits.js";
import type { DeviceMemorySeries, MemoryReport, MemorySeries } from "./report-payload.js";
import type { TraceReportInputs } from "./trace-report-inputs.js";

function categoryEntries(map: MemoryAnalysis["peak_by_category"]): Array<[string, number | string]> {
  return Object.entries(map).map(([category, bytes]) => [category, toExact(bytes ?? 0)]);
}

/** Devices in code-point order. */
function byName<Value>(map: ReadonlyMap<string, Value>): [string, Value][] {
  return [...map].sort(([left], [right]) => compareCodePoints(left, right));
}

/** The memory view from the memory analysis and the downsampled series. */
export function buildMemoryReport(inputs: TraceReportInputs, limits: ReportLimits): MemoryReport {
  const analysis = inputs.memory;
  const series: MemorySeries[] = byName(inputs.memorySeries).map(([device, points]) => ({
    device,
    points_total: points.count,
    points: points.items().map((point) => ({
      timestamp_ns: toExact(point.timestamp_ns),
      live_bytes: toExact(point.live_bytes),
      by_category: categoryEntries(point.by_category),
    })),
  }));
  const deviceMemory: DeviceMemorySeries[] = [...inputs.deviceMemory].map(([device, samples]) => ({
    device,
    points_total: samples.count,
    points: samples.items().map((sample) => {
      const point: DeviceMemorySeries["points"][number] = {
        timestamp_ns: toExact(sample.timestamp_ns),
        used_bytes: toExact(sample.used_bytes),
        free_bytes: toExact(sample.free_bytes),
      };
      if (sample.reserved_bytes !== undefined) point.reserved_bytes = toExact(sample.reserved_bytes);
      return point;
    }),
  }));
  const spanName = (spanId: string): string => {
    const row = inputs.spans.rowOf(spanId);
    return row < 0 ? spanId : inputs.spans.name(row);
  };
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
        span: spanName(allocation.span_id),
      };
      if (allocation.op_name !== undefined) row.op_name = allocation.op_name;
      return row;
    }),
    device_memory: deviceMemory,
  };
}
