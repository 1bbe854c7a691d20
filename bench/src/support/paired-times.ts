// Paired timings of a subject and its baseline, each pair measured back to back (the caller
// alternates which goes first, so drift in machine load hits both sides equally).

export interface PairedSummary {
  subjectOpsPerSecond: number;
  baselineOpsPerSecond: number;
  /** Trimmed geometric mean of subject ÷ baseline over the pairs. */
  ratio: number;
}

export class PairedTimes {
  #subjectNs = 0;
  #baselineNs = 0;
  readonly #ratios: number[] = [];

  add(subjectNs: number, baselineNs: number): void {
    this.#subjectNs += subjectNs;
    this.#baselineNs += baselineNs;
    this.#ratios.push(subjectNs / baselineNs);
  }

  /**
   * Mean rates and the trimmed geometric mean of the paired ratios: symmetric in subject and
   * baseline, and the 10% most extreme pairs on each side (load spikes, GC pauses) do not count.
   */
  summary(): PairedSummary {
    const pairs = this.#ratios.length;
    const sorted = [...this.#ratios].sort((left, right) => left - right);
    const trim = Math.floor(pairs / 10);
    const kept = sorted.slice(trim, pairs - trim);
    return {
      subjectOpsPerSecond: (pairs * 1e9) / this.#subjectNs,
      baselineOpsPerSecond: (pairs * 1e9) / this.#baselineNs,
      ratio: Math.exp(kept.reduce((sum, value) => sum + Math.log(value), 0) / kept.length),
    };
  }
}
