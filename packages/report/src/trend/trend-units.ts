// Axis and hover labels of the trend charts: durations and byte counts with 3 significant digits.
import type { TrendUnit } from "./trend-input.js";

const DURATION_UNITS: readonly (readonly [number, string])[] = [
  [1e9, "s"],
  [1e6, "ms"],
  [1e3, "µs"],
  [1, "ns"],
];
const BYTE_UNITS: readonly (readonly [number, string])[] = [
  [1024 ** 4, "TiB"],
  [1024 ** 3, "GiB"],
  [1024 ** 2, "MiB"],
  [1024, "KiB"],
  [1, "B"],
];

/** `1.47 ms`, `4.00 MiB`, `—` for a missing value. */
export function formatTrendValue(value: number, unit: TrendUnit): string {
  if (!Number.isFinite(value)) return "—";
  const units = unit === "ns" ? DURATION_UNITS : BYTE_UNITS;
  const size = Math.abs(value);
  for (const [scale, name] of units) {
    if (size >= scale || scale === 1) {
      const scaled = value / scale;
      return `${scale === 1 ? String(Math.round(scaled)) : scaled.toPrecision(3)} ${name}`;
    }
  }
  return String(value);
}

/** About `count` round tick values covering [low, high]. */
export function niceTicks(low: number, high: number, count: number): number[] {
  if (!(high > low)) return [low];
  const rough = (high - low) / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 2.5, 5, 10].find((factor) => factor * power >= rough) ?? 10) * power;
  const ticks: number[] = [];
  for (let tick = Math.ceil(low / step) * step; tick <= high + step * 1e-9; tick += step) ticks.push(tick);
  return ticks;
}
