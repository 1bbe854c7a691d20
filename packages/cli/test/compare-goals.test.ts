// The comparison goals, on writer-made training steps with a planted change and noise on
// everything else (test/synthetic-pairs.ts): the planted cause is ranked first in ≥ 95 % of pairs,
// the named parts hold ≥ 90 % of both deltas, and the documented gate (time>5%,peak>5%) never
// breaks on pairs that differ only by noise. The figures are printed for the README.
import { compareTraces, parseGateRules, parseTraceText } from "@cg/trace";
import { describe, expect, it } from "vitest";
import {
  LAYER_OPS,
  optimizerLiveBytes,
  random,
  trainingStep,
  unplantedPeakBytes,
} from "./synthetic-pairs.js";

const PAIRS = 200;
const LAYERS = 8;
const DOCUMENTED_GATE = parseGateRules("time>5%,peak>5%");

interface Planted {
  op: { layer: number; step: "forward" | "backward"; op: string };
  memory: "allocate-more" | "peak-moved";
  layer: number;
}

/** A pair: baseline and candidate differ by their noise and by the plants of pair `index`. */
function plantedPair(index: number) {
  const rng = random(10_000 + index);
  const step = rng.next() < 0.5 ? ("forward" as const) : ("backward" as const);
  const ops = LAYER_OPS[step];
  const [op, base] = ops[rng.pick(ops.length)] as readonly [string, number];
  const layer = rng.pick(LAYERS);
  // A regression worth finding: the slowed op adds 2–6 % of the step.
  const stepNs = 2_200_000 * (LAYERS / 6);
  const factor = 1 + ((0.02 + 0.04 * rng.next()) * stepNs) / base;
  const memory = index % 2 === 0 ? ("allocate-more" as const) : ("peak-moved" as const);
  const memoryLayer = rng.pick(LAYERS);
  const plant =
    memory === "allocate-more"
      ? { allocateMore: { layer: memoryLayer, factor: 1.5 + rng.next() } }
      : {
          moveOptimizerPeak: {
            bytes:
              unplantedPeakBytes(LAYERS) -
              optimizerLiveBytes(LAYERS) +
              Math.round((4 + 28 * rng.next()) * 2 ** 20),
          },
        };
  const baseline = trainingStep({ layers: LAYERS, seed: 2 * index + 1 });
  const candidate = trainingStep({
    layers: LAYERS,
    seed: 2 * index + 2,
    plant: { slowOp: { layer, step, op, factor }, ...plant },
  });
  const planted: Planted = { op: { layer, step, op }, memory, layer: memoryLayer };
  return { baseline, candidate, planted };
}

describe("attribution goals on planted pairs", () => {
  it("ranks the planted cause first and names ≥ 90 % of both deltas", () => {
    let timeFirst = 0;
    let memoryFirst = 0;
    let moved = 0;
    const timeShares: number[] = [];
    const peakShares: number[] = [];
    for (let index = 0; index < PAIRS; index++) {
      const { baseline, candidate, planted } = plantedPair(index);
      const comparison = compareTraces(parseTraceText(baseline), parseTraceText(candidate));
      expect(comparison.comparable, comparison.reasons.join("; ")).toBe(true);
      const attribution = comparison.attribution;
      if (attribution === undefined) throw new Error("no attribution");
      const first = attribution.time.parts[0];
      const wantSpan = `/layer${planted.op.layer}/${planted.op.step} [function]/${planted.op.step === "forward" ? "Forward" : "Backward"}`;
      if (
        first?.kind === "op" &&
        first.op?.startsWith(`${planted.op.op} [`) &&
        first.span?.endsWith(wantSpan)
      )
        timeFirst++;
      const peakFirst = attribution.peak.parts[0];
      if (planted.memory === "allocate-more") {
        if (
          peakFirst?.category === "gradient" &&
          peakFirst.span?.endsWith(`/layer${planted.layer}/backward [function]/Backward`)
        )
          memoryFirst++;
      } else {
        if (attribution.peak.moved && attribution.peak.candidate_peak.span?.includes("/optimizer [")) moved++;
        if (peakFirst?.op === "adam_flatten" && peakFirst.span?.includes("/optimizer [")) memoryFirst++;
      }
      timeShares.push(attribution.time.named_share);
      peakShares.push(attribution.peak.named_share);
    }
    const atLeast = (shares: number[], floor: number) =>
      shares.filter((share) => share >= floor).length / shares.length;
    const median = (shares: number[]) =>
      [...shares].sort((a, b) => a - b)[Math.floor(shares.length / 2)] as number;
    console.log(
      `${PAIRS} planted pairs: slowed op first ${timeFirst}/${PAIRS}, memory cause first ${memoryFirst}/${PAIRS}, peak moved seen ${moved}/${PAIRS / 2}; ` +
        `time delta in named parts ≥ 90 % in ${(atLeast(timeShares, 0.9) * 100).toFixed(1)} % of pairs (median ${(median(timeShares) * 100).toFixed(1)} %), ` +
        `peak delta ≥ 90 % in ${(atLeast(peakShares, 0.9) * 100).toFixed(1)} % (median ${(median(peakShares) * 100).toFixed(1)} %)`,
    );
    expect(timeFirst / PAIRS).toBeGreaterThanOrEqual(0.95);
    expect(memoryFirst / PAIRS).toBeGreaterThanOrEqual(0.95);
    expect(moved).toBe(PAIRS / 2);
    expect(median(timeShares)).toBeGreaterThanOrEqual(0.9);
    expect(median(peakShares)).toBeGreaterThanOrEqual(0.9);
    expect(atLeast(timeShares, 0.9)).toBeGreaterThanOrEqual(0.9);
    expect(atLeast(peakShares, 0.9)).toBeGreaterThanOrEqual(0.95);
  });

  it("never breaks the documented gate on pairs that differ only by noise, and breaks it on planted pairs", () => {
    let falseAlarms = 0;
    let worstTime = 0;
    let worstPeak = 0;
    for (let index = 0; index < PAIRS; index++) {
      const baseline = parseTraceText(trainingStep({ layers: LAYERS, seed: 50_000 + 2 * index }));
      const candidate = parseTraceText(trainingStep({ layers: LAYERS, seed: 50_001 + 2 * index }));
      const comparison = compareTraces(baseline, candidate, { failOn: DOCUMENTED_GATE });
      if (comparison.gate?.passed !== true) falseAlarms++;
      worstTime = Math.max(worstTime, Math.abs(comparison.total_delta_percent ?? 0));
      worstPeak = Math.max(worstPeak, Math.abs(comparison.peak_delta_percent ?? 0));
    }
    console.log(
      `${PAIRS} noise-only pairs: ${falseAlarms} broke time>5%,peak>5% (largest |time delta| ${worstTime.toFixed(2)} %, |peak delta| ${worstPeak.toFixed(3)} %)`,
    );
    expect(falseAlarms).toBe(0);
    // The same gate does break where a plant moves a total past it (every moved peak here).
    const { baseline, candidate } = plantedPair(1);
    const gate = compareTraces(parseTraceText(baseline), parseTraceText(candidate), {
      failOn: DOCUMENTED_GATE,
    }).gate;
    expect(gate?.passed).toBe(false);
    expect(gate?.checks[0]).toMatchObject({ rule: "peak>5%", broken: true });
  });
});
