// A generated fleet of small traces: jobs × steps × 8 ranks, one trace per rank and step, the
// ranks of one step joined by `correlation_id`. One rank of one job is made slow in `backward`.
// The generator keeps every op it writes, so tests can compute the answers directly.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encodeTraceEvent, type TraceEvent } from "@cg/schema";

export interface FleetOptions {
  jobs: number;
  steps: number;
  ranks: number;
  /** The job and rank whose backward pass is slow. */
  slow: { job: number; rank: number; factor: number };
}

export interface FleetOp {
  runId: string;
  opName: string;
  durationNs: number;
  storageBytes: number;
}

export interface Fleet {
  files: string[];
  ops: FleetOp[];
  slowCorrelationIds: string[];
}

/** Deterministic pseudo-random integers (a linear congruential generator). */
function generator(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % below;
  };
}

const STEPS = [
  { name: "forward", ops: ["matmul", "relu", "matmul"] },
  { name: "backward", ops: ["matmul_grad", "relu_grad", "matmul_grad"] },
  { name: "optimizer", ops: ["adam"] },
] as const;

export function writeFleet(dir: string, options: FleetOptions): Fleet {
  mkdirSync(dir, { recursive: true });
  const random = generator(7);
  const files: string[] = [];
  const ops: FleetOp[] = [];
  const slowCorrelationIds: string[] = [];
  for (let job = 0; job < options.jobs; job++) {
    for (let step = 1; step <= options.steps; step++) {
      const correlationId = `job-${job}/update-${step}`;
      if (job === options.slow.job) slowCorrelationIds.push(correlationId);
      for (let rank = 0; rank < options.ranks; rank++) {
        const runId = `job-${job}-step-${step}-rank-${rank}`;
        const lines: TraceEvent[] = [
          {
            kind: "meta",
            schema: "candle-graph/trace/6",
            run_id: runId,
            correlation_id: correlationId,
            entrypoint: `job-${job}::train`,
            phase: "train",
            timestamp: "2026-11-30T12:00:00.000Z",
            capture_step: step,
            warmup_steps: 1,
            device: "cuda:0",
            measured_region_device_synchronized: true,
            timing_mode: "host",
            tags: { rank: String(rank), world_size: String(options.ranks) },
          },
          {
            kind: "span_start",
            id: "s1",
            name: "train",
            start_ns: 0,
            span_kind: "function",
            measured: false,
          },
          {
            kind: "span_start",
            id: "s2",
            parent_id: "s1",
            name: "update",
            start_ns: 100,
            span_kind: "function",
            measured: true,
          },
        ];
        let now = 200;
        STEPS.forEach((stepSpec, index) => {
          const id = `s${index + 3}`;
          const start = now;
          lines.push({
            kind: "span_start",
            id,
            parent_id: "s2",
            name: stepSpec.name,
            start_ns: start,
            span_kind: "function",
            measured: false,
            step: stepSpec.name,
          });
          const slow = job === options.slow.job && rank === options.slow.rank && stepSpec.name === "backward";
          for (const opName of stepSpec.ops) {
            const durationNs = (1000 + random(1000)) * (slow ? options.slow.factor : 1);
            const storageBytes = 4096 * (1 + random(4));
            ops.push({ runId, opName, durationNs, storageBytes });
            lines.push({
              kind: "op",
              span_id: id,
              op_name: opName,
              inputs: [],
              shape: [32, 32],
              dtype: "f32",
              device: "cuda:0",
              duration_ns: durationNs,
              timestamp_ns: now,
              storage_bytes: storageBytes,
              input_storage_bytes: 0,
            });
            now += durationNs;
          }
          lines.push({ kind: "span_end", id, duration_ns: now - start });
          now += 10;
        });
        lines.push({ kind: "span_end", id: "s2", duration_ns: now - 100 });
        lines.push({ kind: "span_end", id: "s1", duration_ns: now + 10 });
        const file = join(dir, `${runId}.jsonl`);
        writeFileSync(file, `${lines.map(encodeTraceEvent).join("\n")}\n`);
        files.push(file);
      }
    }
  }
  return { files, ops, slowCorrelationIds };
}
