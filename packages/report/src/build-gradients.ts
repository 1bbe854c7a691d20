import type { GradientEvent } from "@cg/schema/core";
import type { ReportLimits } from "./report-limits.js";
import type { GradientRow, GradientTable } from "./report-payload.js";

/** Rank of a state in the table: non-finite, missing and zero first, then the rest. */
const problemOrder: Record<string, number> = { non_finite: 0, missing: 1, zero: 2 };
const RANKS = 4;

/**
 * Gradient facts, fed one at a time in file order: every problem (non-finite, missing, zero)
 * before the present ones. Keeps at most `gradientRows` facts per rank, so memory is bounded
 * however many facts the trace has.
 */
export class GradientCollector {
  readonly #limit: number;
  readonly #ranks: GradientRow[][] = Array.from({ length: RANKS }, () => []);
  #total = 0;
  #problems = 0;

  constructor(limits: ReportLimits) {
    this.#limit = limits.gradientRows;
  }

  push(gradient: Pick<GradientEvent, "root" | "key" | "state" | "norm">): void {
    this.#total++;
    const problem = gradient.state !== "present";
    if (problem) this.#problems++;
    const rank = this.#ranks[problemOrder[gradient.state] ?? RANKS - 1] as GradientRow[];
    if (rank.length >= this.#limit) return;
    rank.push({
      root: gradient.root,
      key: gradient.key,
      state: gradient.state,
      norm: gradient.norm ?? null,
      problem,
    });
  }

  /** Facts seen. */
  get total(): number {
    return this.#total;
  }

  /** Facts whose state is not "present". */
  get problems(): number {
    return this.#problems;
  }

  table(): GradientTable {
    const rows: GradientRow[] = [];
    for (const rank of this.#ranks) {
      for (const row of rank) {
        if (rows.length >= this.#limit) break;
        rows.push(row);
      }
    }
    return { rows, rows_total: this.#total, problems: this.#problems };
  }
}
