// Benchmark harness: every figure is printed beside its baseline from the same run, as a ratio.
// Absolute times on shared machines are noisy; the ratio is what the benchmarks promise.
import { Bench } from "tinybench";

export interface Contender {
  name: string;
  fn: () => unknown;
}

export interface CompareOptions {
  /** "speedup": subject should be faster (ratio = subject ops/s ÷ baseline ops/s).
   *  "cost": ratio = subject time per op ÷ baseline time per op (lower is better). */
  mode?: "speedup" | "cost";
  /** The promise, e.g. 1.5 for "at least 1.5x" in speedup mode or "at most 3x" in cost mode. */
  target?: number;
  timeMs?: number;
}

export interface Comparison {
  title: string;
  subjectOpsPerSecond: number;
  baselineOpsPerSecond: number;
  ratio: number;
  met: boolean | undefined;
}

export const results: Comparison[] = [];

function formatRate(opsPerSecond: number): string {
  if (opsPerSecond >= 1e6) return `${(opsPerSecond / 1e6).toFixed(2)} M ops/s`;
  if (opsPerSecond >= 1e3) return `${(opsPerSecond / 1e3).toFixed(2)} k ops/s`;
  return `${opsPerSecond.toFixed(2)} ops/s`;
}

export function report(comparison: Omit<Comparison, "met">, mode: "speedup" | "cost", target?: number) {
  const met =
    target === undefined
      ? undefined
      : mode === "speedup"
        ? comparison.ratio >= target
        : comparison.ratio <= target;
  const goal =
    target === undefined
      ? ""
      : ` (target ${mode === "speedup" ? "≥" : "≤"} ${target}x: ${met ? "met" : "NOT met"})`;
  const label = mode === "speedup" ? "speedup" : "cost ratio";
  console.log(
    `${comparison.title}\n  subject  ${formatRate(comparison.subjectOpsPerSecond)}\n  baseline ${formatRate(comparison.baselineOpsPerSecond)}\n  ${label} ${comparison.ratio.toFixed(2)}x${goal}`,
  );
  const full = { ...comparison, met };
  results.push(full);
  return full;
}

function opsPerSecond(result: unknown): number {
  // Mean latency (ms per op) is the stable figure; instantaneous-rate means overweight fast outliers.
  const latency = (result as { latency?: { mean?: number } } | undefined)?.latency?.mean;
  return latency ? 1000 / latency : 0;
}

/** Runs subject and baseline interleaved in one bench and prints them side by side. */
export async function compare(
  title: string,
  subject: Contender,
  baseline: Contender,
  options: CompareOptions = {},
): Promise<Comparison> {
  const mode = options.mode ?? "speedup";
  const bench = new Bench({ time: options.timeMs ?? 1000, warmupTime: 200 });
  bench.add(`subject: ${subject.name}`, subject.fn);
  bench.add(`baseline: ${baseline.name}`, baseline.fn);
  await bench.run();
  const [subjectTask, baselineTask] = bench.tasks;
  const subjectHz = opsPerSecond(subjectTask?.result);
  const baselineHz = opsPerSecond(baselineTask?.result);
  const ratio = mode === "speedup" ? subjectHz / baselineHz : baselineHz / subjectHz;
  return report(
    {
      title: `${title} — ${subject.name} vs ${baseline.name}`,
      subjectOpsPerSecond: subjectHz,
      baselineOpsPerSecond: baselineHz,
      ratio,
    },
    mode,
    options.target,
  );
}
