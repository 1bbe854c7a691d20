// Robust statistics for a regression verdict over repeated runs: median, MAD and the one-sided
// Mann-Whitney U test (exact permutation distribution for small samples, ties included; normal approximation with
// the tie correction otherwise).

/** The median of `values` (the mean of the two middle values for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Median absolute deviation from the median (unscaled); NaN when empty. */
export function medianAbsoluteDeviation(values: readonly number[]): number {
  const center = median(values);
  return median(values.map((value) => Math.abs(value - center)));
}

/** MAD × this estimates the standard deviation of normally distributed values. */
export const MAD_TO_SIGMA = 1.4826;

export interface RankTest {
  /** Mann-Whitney U of the candidate sample: pairs where it is larger (ties count one half). */
  u: number;
  /** One-sided p-value that the candidate is stochastically larger than the baseline. */
  pGreater: number;
  /** One-sided p-value that it is smaller. */
  pLess: number;
  method: "exact" | "normal";
}

/** The exact test is used while its table (items × candidates × rank sums) stays this small. */
const EXACT_MAX_WORK = 50_000_000;

/**
 * Counts of the candidates' doubled rank sum over every choice of `m` of the pooled items, whose
 * doubled (mid-)ranks are `ranks2`: entry s is the number of choices summing to s. Doubling keeps
 * the mid-ranks of ties whole numbers, so the same table serves samples with and without ties.
 */
function exactRankSumCounts(ranks2: readonly number[], m: number): Float64Array[] {
  const maxSum = ranks2.reduce((sum, rank) => sum + rank, 0);
  // ways[k][s]: choices of k items so far with doubled rank sum s.
  const ways = Array.from({ length: m + 1 }, () => new Float64Array(maxSum + 1));
  (ways[0] as Float64Array)[0] = 1;
  for (const rank of ranks2) {
    for (let k = m; k >= 1; k--) {
      const into = ways[k] as Float64Array;
      const from = ways[k - 1] as Float64Array;
      for (let sum = maxSum; sum >= rank; sum--)
        into[sum] = (into[sum] as number) + (from[sum - rank] as number);
    }
  }
  return ways;
}

/** Standard normal upper tail, P(Z ≥ z) (Abramowitz–Stegun 7.1.26 through erfc; |error| < 1.5e-7). */
function normalUpperTail(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly =
    t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erfc = poly * Math.exp(-x * x);
  return z >= 0 ? erfc / 2 : 1 - erfc / 2;
}

interface Pooled {
  value: number;
  candidate: boolean;
}

/** Mann-Whitney U of `candidate` against `baseline`, with one-sided p-values both ways. */
export function mannWhitneyU(
  baseline: readonly number[],
  candidate: readonly number[],
  options: {
    /** false: always the normal approximation (default: exact while the samples are small). */
    exact?: boolean;
  } = {},
): RankTest {
  const n = baseline.length;
  const m = candidate.length;
  if (n === 0 || m === 0) throw new RangeError("mannWhitneyU: both samples need at least one value");
  // Ranks of the pooled sample, ties given their mean rank.
  const pooled = [
    ...baseline.map((value) => ({ value, candidate: false })),
    ...candidate.map((value) => ({ value, candidate: true })),
  ];
  pooled.sort((left, right) => left.value - right.value);
  // Doubled mid-ranks (whole numbers), the candidates' doubled rank sum and the tie term.
  const ranks2 = new Array<number>(pooled.length);
  let candidateRankSum2 = 0;
  let tieTerm = 0;
  for (let start = 0; start < pooled.length; ) {
    let end = start + 1;
    while (end < pooled.length && (pooled[end] as Pooled).value === (pooled[start] as Pooled).value) end++;
    const size = end - start;
    if (size > 1) tieTerm += size ** 3 - size;
    for (let index = start; index < end; index++) {
      ranks2[index] = start + 1 + end;
      if ((pooled[index] as Pooled).candidate) candidateRankSum2 += start + 1 + end;
    }
    start = end;
  }
  const u = candidateRankSum2 / 2 - (m * (m + 1)) / 2;
  const total = n + m;
  if (options.exact !== false && total * m * total * (total + 1) <= EXACT_MAX_WORK) {
    const counts = exactRankSumCounts(ranks2, m)[m] as Float64Array;
    let all = 0;
    let atLeast = 0;
    let atMost = 0;
    for (let sum = 0; sum < counts.length; sum++) {
      const count = counts[sum] as number;
      all += count;
      if (sum >= candidateRankSum2) atLeast += count;
      if (sum <= candidateRankSum2) atMost += count;
    }
    return { u, pGreater: atLeast / all, pLess: atMost / all, method: "exact" };
  }
  const mean = (n * m) / 2;
  const variance = ((n * m) / 12) * (total + 1 - tieTerm / (total * (total - 1)));
  if (variance <= 0) return { u, pGreater: 1, pLess: 1, method: "normal" };
  const sd = Math.sqrt(variance);
  // Continuity correction of one half toward the mean.
  return {
    u,
    pGreater: normalUpperTail((u - mean - 0.5) / sd),
    pLess: 1 - normalUpperTail((u - mean + 0.5) / sd),
    method: "normal",
  };
}

/**
 * The fewest baseline runs with which `candidate` runs can reach a one-sided p-value of `alpha`
 * at all: the exact test's smallest p is 1 / C(baseline + candidate, candidate). One candidate run
 * against 20 baseline runs can never go below 1/21, so a single pair never gives a verdict.
 */
export function minimumBaselineRuns(candidate: number, alpha: number): number {
  for (let baseline = 1; baseline <= 100_000; baseline++) {
    if (1 / binomial(baseline + candidate, candidate) <= alpha) return baseline;
  }
  return Number.POSITIVE_INFINITY;
}

function binomial(total: number, chosen: number): number {
  let result = 1;
  for (let index = 1; index <= chosen; index++) result = (result * (total - chosen + index)) / index;
  return result;
}
