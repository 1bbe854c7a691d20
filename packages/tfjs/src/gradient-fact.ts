import type { GradientState } from "@cg/schema/core";

export interface GradientFact {
  state: GradientState;
  /** L2 norm accumulated in float64; absent for `missing` and `non_finite`. */
  norm?: number;
}

/** Classifies one gradient from its values: `non_finite` wins over `zero`, which wins over `present`. */
export function gradientFact(values: ArrayLike<number> | undefined): GradientFact {
  if (values === undefined) return { state: "missing" };
  let sumOfSquares = 0;
  let allZero = true;
  for (let index = 0; index < values.length; index++) {
    const value = values[index] as number;
    if (!Number.isFinite(value)) return { state: "non_finite" };
    if (value !== 0) allZero = false;
    sumOfSquares += value * value;
  }
  if (allZero) return { state: "zero", norm: 0 };
  return { state: "present", norm: Math.sqrt(sumOfSquares) };
}
