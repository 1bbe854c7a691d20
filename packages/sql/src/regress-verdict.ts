// The noise-aware verdict on one metric: the newest runs (candidate window) against the runs before
// them (baseline window). A change is flagged only when three things agree: the medians differ by
// more than the threshold, the candidate median lies outside the baseline's noise band
// (median ± k·1.4826·MAD), and the one-sided Mann-Whitney U test gives p ≤ alpha.
import { MAD_TO_SIGMA, mannWhitneyU, median, medianAbsoluteDeviation } from "./regress-stats.js";

/** A threshold on the change of the medians: a share of the baseline median, or an amount. */
export type RegressThreshold = { percent: number } | { absolute: number };

export interface VerdictOptions {
  threshold: RegressThreshold;
  /** One-sided significance level of the rank test (default 0.01). */
  alpha?: number;
  /** Width of the noise band in robust standard deviations (default 3). */
  bandK?: number;
}

export type VerdictStatus = "regression" | "improvement" | "unchanged";

export interface MetricVerdict {
  status: VerdictStatus;
  baselineMedian: number;
  /** Unscaled median absolute deviation of the baseline window. */
  baselineMad: number;
  candidateMedian: number;
  /** Noise band of the baseline: median ± bandK · 1.4826 · MAD. */
  bandLow: number;
  bandHigh: number;
  delta: number;
  /** Relative to the baseline median; absent when that is 0. */
  deltaPercent?: number;
  /** One-sided p-value in the direction of the change. */
  pValue: number;
  test: "exact" | "normal";
  /** Which of the three conditions held, for the explanation. */
  beyondThreshold: boolean;
  outsideBand: boolean;
  significant: boolean;
}

export const DEFAULT_ALPHA = 0.01;
export const DEFAULT_BAND_K = 3;

function beyond(threshold: RegressThreshold, delta: number, base: number): boolean {
  const size = Math.abs(delta);
  if ("absolute" in threshold) return size > threshold.absolute;
  if (base === 0) return size > 0;
  return (size / Math.abs(base)) * 100 > threshold.percent;
}

/** The verdict on `candidate` against `baseline` (each non-empty). */
export function judgeWindows(
  baseline: readonly number[],
  candidate: readonly number[],
  options: VerdictOptions,
): MetricVerdict {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  const bandK = options.bandK ?? DEFAULT_BAND_K;
  const baselineMedian = median(baseline);
  const baselineMad = medianAbsoluteDeviation(baseline);
  const candidateMedian = median(candidate);
  const halfBand = bandK * MAD_TO_SIGMA * baselineMad;
  const delta = candidateMedian - baselineMedian;
  const test = mannWhitneyU(baseline, candidate);
  const pValue = delta >= 0 ? test.pGreater : test.pLess;
  const beyondThreshold = beyond(options.threshold, delta, baselineMedian);
  const outsideBand = Math.abs(delta) > halfBand;
  const significant = pValue <= alpha;
  const changed = beyondThreshold && outsideBand && significant;
  return {
    status: !changed ? "unchanged" : delta > 0 ? "regression" : "improvement",
    baselineMedian,
    baselineMad,
    candidateMedian,
    bandLow: baselineMedian - halfBand,
    bandHigh: baselineMedian + halfBand,
    delta,
    ...(baselineMedian === 0 ? {} : { deltaPercent: (delta / baselineMedian) * 100 }),
    pValue,
    test: test.method,
    beyondThreshold,
    outsideBand,
    significant,
  };
}
