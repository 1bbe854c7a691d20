import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { judgeWindows } from "./regress-verdict.js";

/** Deterministic standard normal values (Box-Muller over a seeded 32-bit generator). */
function normals(seed: number): () => number {
  let state = seed >>> 0 || 1;
  const uniform = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 0.5) / 2 ** 32;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

interface Noise {
  seed: number;
  base: number;
  /** Coefficient of variation of the Gaussian noise. */
  cv: number;
  /** Chance that a run is an outlier, and how much slower it is then. */
  outlierChance: number;
  outlierFactor: number;
}

/** 20 baseline and 3 candidate runs of one metric, the candidates multiplied by `planted`. */
function fleet(noise: Noise, planted: number): { baseline: number[]; candidate: number[] } {
  const normal = normals(noise.seed);
  const values: number[] = [];
  let outliers = 0;
  for (let run = 0; run < 23; run++) {
    let value = noise.base * (1 + noise.cv * normal());
    // Outliers are rare: at most one in the three newest runs (two of three is a real change).
    const candidateRun = run >= 20;
    if (Math.abs(normal()) < noise.outlierChance * 2.5 && !(candidateRun && outliers > 0)) {
      value *= noise.outlierFactor;
      if (candidateRun) outliers++;
    }
    values.push(candidateRun ? value * planted : value);
  }
  return { baseline: values.slice(0, 20), candidate: values.slice(20) };
}

const noiseArbitrary = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  base: fc.integer({ min: 10_000, max: 5_000_000_000 }),
  cv: fc.double({ min: 0.002, max: 0.05, noNaN: true }),
  outlierChance: fc.double({ min: 0, max: 0.1, noNaN: true }),
  outlierFactor: fc.double({ min: 1.2, max: 4, noNaN: true }),
});

describe("the documented defaults (5 %, alpha 0.01, band 3 robust σ; 20 + 3 runs)", () => {
  test("noise alone (Gaussian up to 5 % CV, rare slow outliers) never gives a verdict", () => {
    fc.assert(
      fc.property(noiseArbitrary, (noise) => {
        const { baseline, candidate } = fleet(noise, 1);
        expect(judgeWindows(baseline, candidate, { threshold: { percent: 5 } }).status).toBe("unchanged");
      }),
      { seed: 2828, numRuns: 400 },
    );
  });

  test("a planted slowdown of 25 % or more in the newest three runs is flagged", () => {
    fc.assert(
      fc.property(noiseArbitrary, fc.double({ min: 1.25, max: 3, noNaN: true }), (noise, planted) => {
        const { baseline, candidate } = fleet({ ...noise, outlierChance: 0 }, planted);
        const verdict = judgeWindows(baseline, candidate, { threshold: { percent: 5 } });
        expect(verdict.status).toBe("regression");
        expect(verdict.pValue).toBeLessThanOrEqual(0.01);
      }),
      { seed: 2828, numRuns: 300 },
    );
  });

  test("a planted speed-up is an improvement, not a regression", () => {
    const { baseline, candidate } = fleet(
      { seed: 5, base: 1e6, cv: 0.02, outlierChance: 0, outlierFactor: 1 },
      0.7,
    );
    expect(judgeWindows(baseline, candidate, { threshold: { percent: 5 } }).status).toBe("improvement");
  });
});

describe("each condition is needed", () => {
  const baseline = [100, 101, 99, 100, 102, 98, 100, 101, 99, 100];
  test("beyond the threshold but inside a wide noise band: unchanged", () => {
    const noisy = [100, 130, 70, 100, 125, 75, 100, 120, 80, 100];
    const verdict = judgeWindows(noisy, [112, 113, 114], { threshold: { percent: 5 } });
    expect(verdict).toMatchObject({ status: "unchanged", beyondThreshold: true, outsideBand: false });
  });
  test("outside the band and significant but below the threshold: unchanged", () => {
    const verdict = judgeWindows(baseline, [106, 106, 106], { threshold: { percent: 10 } });
    expect(verdict).toMatchObject({
      status: "unchanged",
      beyondThreshold: false,
      outsideBand: true,
      significant: true,
    });
    expect(judgeWindows(baseline, [106, 106, 106], { threshold: { percent: 5 } }).status).toBe("regression");
  });
  test("an absolute threshold", () => {
    expect(judgeWindows(baseline, [110, 111, 112], { threshold: { absolute: 12 } }).status).toBe("unchanged");
    expect(judgeWindows(baseline, [110, 111, 112], { threshold: { absolute: 10 } }).status).toBe(
      "regression",
    );
  });
  test("too few runs for the test: never significant", () => {
    const verdict = judgeWindows([100, 100, 101], [200], { threshold: { percent: 5 } });
    expect(verdict).toMatchObject({
      status: "unchanged",
      beyondThreshold: true,
      outsideBand: true,
      significant: false,
    });
    expect(verdict.pValue).toBe(0.25);
  });
  test("figures", () => {
    const verdict = judgeWindows(baseline, [120, 121, 122], { threshold: { percent: 5 }, bandK: 2 });
    expect(verdict).toMatchObject({ baselineMedian: 100, baselineMad: 1, candidateMedian: 121, delta: 21 });
    expect(verdict.deltaPercent).toBeCloseTo(21, 12);
    expect(verdict.bandHigh).toBeCloseTo(100 + 2 * 1.4826, 12);
  });
});
