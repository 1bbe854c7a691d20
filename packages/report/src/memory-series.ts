import type { MemoryTimelinePoint } from "@cg/memory";
import type { DeviceMemoryEvent } from "@cg/schema/core";
import { approximate } from "./exact-number.js";
import { MaxDownsampler } from "./max-downsampler.js";
import type { ReportLimits } from "./report-limits.js";

/** Items of several devices, each device's series downsampled on its own as items arrive. */
export class PerDeviceSeries<Item extends { device: string }> {
  readonly byDevice = new Map<string, MaxDownsampler<Item>>();
  readonly #limit: number;
  readonly #weight: (item: Item) => number;

  constructor(limit: number, weight: (item: Item) => number) {
    this.#limit = limit;
    this.#weight = weight;
  }

  push(item: Item): void {
    let series = this.byDevice.get(item.device);
    if (series === undefined) {
      series = new MaxDownsampler(this.#limit, this.#weight);
      this.byDevice.set(item.device, series);
    }
    series.push(item);
  }
}

/** The memory timeline per device, keeping each interval's highest live total (so the peak). */
export function memorySeries(limits: ReportLimits): PerDeviceSeries<MemoryTimelinePoint> {
  return new PerDeviceSeries(limits.memoryPoints, (point) => approximate(point.live_bytes));
}

/** Device-memory samples per device, keeping each interval's highest use. */
export function deviceMemorySeries(limits: ReportLimits): PerDeviceSeries<DeviceMemoryEvent> {
  return new PerDeviceSeries(limits.memoryPoints, (sample) => approximate(sample.used_bytes));
}
