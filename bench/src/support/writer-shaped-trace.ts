// A generated writer-shaped trace for the benchmarks that need large inputs (never committed):
// a root and a measured span, then layer spans (forward/backward/optimizer) with ops, their output
// tensors, alloc/free pairs (some kept alive until the end of their span), gradient facts and a
// device-memory checkpoint per layer.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeTraceEvent, SCHEMA } from "@cg/schema";
import { openLineFile } from "./line-file.js";

/**
 * Writes a writer-shaped trace of about `targetBytes`: a root and a measured span, then layer spans
 * (forward/backward/optimizer) with ops, their output tensors, alloc/free pairs (some kept alive
 * for a while), gradient facts and a device-memory checkpoint per layer. Returns the bytes written.
 * `matmulNs` sets the matmul ops' duration (default 90 ns, as the adds): a second trace with another
 * value is the same trace with one planted change, for comparisons.
 */
export function generateWriterShapedTrace(
  path: string,
  targetBytes: number,
  entrypoint = "bench::train",
  matmulNs = 90,
): number {
  const file = openLineFile(path);
  const emit = (line: string): void => file.emit(line);
  emit(
    encodeTraceEvent({
      kind: "meta",
      schema: SCHEMA,
      run_id: "run-1-0",
      correlation_id: `${entrypoint}/update-1`,
      entrypoint,
      phase: "train",
      timestamp: "2025-01-01T00:00:00.000Z",
      capture_step: 1,
      warmup_steps: 0,
      device: "cuda:0",
      measured_region_device_synchronized: true,
      timing_mode: "host",
      tags: { precision: "f32" },
    }),
  );
  emit(
    encodeTraceEvent({
      kind: "span_start",
      id: "s1",
      name: entrypoint,
      start_ns: 0,
      span_kind: "function",
      measured: false,
    }),
  );
  emit(
    '{"kind":"span_start","id":"s2","parent_id":"s1","name":"bench/update-000000000001","start_ns":1,"span_kind":"function","measured":true}',
  );
  let clock = 10;
  let span = 3;
  let tensor = 0;
  const steps = ["forward", "backward", "optimizer"] as const;
  const categories = { forward: "activation", backward: "gradient", optimizer: "optimizer" } as const;
  while (file.length < targetBytes) {
    const id = `s${span}`;
    const step = steps[span % 3]!;
    span += 1;
    const start = clock;
    emit(
      encodeTraceEvent({
        kind: "span_start",
        id,
        parent_id: "s2",
        name: `bench/update-000000000001/layer-${span}`,
        start_ns: start,
        span_kind: "module",
        measured: false,
        step,
      }),
    );
    // Every other output stays alive until the end of its layer span.
    const heldUntilSpanEnd: string[] = [];
    for (let index = 0; index < 40; index++) {
      clock += 100;
      const output = `t${tensor++}`;
      emit(
        encodeTraceEvent({
          kind: "op",
          span_id: id,
          op_name: index % 2 === 0 ? "matmul" : "add",
          inputs: [`t${tensor - 2}`, `t${tensor - 3}`],
          output,
          shape: [64, 128],
          dtype: "f32",
          device: "cuda:0",
          duration_ns: index % 2 === 0 ? matmulNs : 90,
          timestamp_ns: clock,
          storage_bytes: 32768,
          input_storage_bytes: 65536,
        }),
      );
      emit(
        encodeTraceEvent({
          kind: "tensor",
          span_id: id,
          tensor_id: output,
          shape: [64, 128],
          dtype: "f32",
          device: "cuda:0",
          requires_grad: false,
          storage_bytes: 32768,
          category: categories[step],
        }),
      );
      const memory = {
        kind: "memory" as const,
        timestamp_ns: clock,
        tensor_id: output,
        span_id: id,
        op_name: index % 2 === 0 ? "matmul" : "add",
        device: "cuda:0",
        bytes: 32768,
        shape: [64, 128],
        dtype: "f32",
        category: categories[step],
      };
      emit(encodeTraceEvent({ ...memory, action: "alloc" }));
      if (index % 2 === 0) emit(encodeTraceEvent({ ...memory, timestamp_ns: clock + 50, action: "free" }));
      else heldUntilSpanEnd.push(output);
    }
    clock += 10;
    for (const held of heldUntilSpanEnd) {
      emit(
        encodeTraceEvent({
          kind: "memory",
          timestamp_ns: clock,
          tensor_id: held,
          span_id: id,
          device: "cuda:0",
          bytes: 32768,
          shape: [64, 128],
          dtype: "f32",
          category: categories[step],
          action: "free",
        }),
      );
    }
    emit(
      encodeTraceEvent({
        kind: "gradient",
        event_id: `gradient-${span}`,
        root: "bench",
        key: `layer-${span}.weight`,
        state: "present",
        norm: 0.25,
      }),
    );
    emit(
      encodeTraceEvent({
        kind: "device_memory",
        timestamp_ns: clock,
        device: "cuda:0",
        used_bytes: 1 << 30,
        free_bytes: 2 ** 34,
      }),
    );
    clock += 10;
    emit(encodeTraceEvent({ kind: "span_end", id, duration_ns: clock - start }));
  }
  emit(`{"kind":"span_end","id":"s2","duration_ns":${clock}}`);
  emit(`{"kind":"span_end","id":"s1","duration_ns":${clock + 1}}`);
  return file.close();
}

const shared = new Map<number, { path: string; bytes: number }>();
let sharedDirectory: string | undefined;

/**
 * A writer-shaped trace of about `targetBytes` generated once per bench run and shared by every
 * bench file that needs that size (a 1 GiB trace takes minutes to generate on a loaded machine).
 * Read it, never modify it; `removeSharedTraces` deletes them all.
 */
export function sharedWriterShapedTrace(targetBytes: number): { path: string; bytes: number } {
  const cached = shared.get(targetBytes);
  if (cached !== undefined) return cached;
  sharedDirectory ??= mkdtempSync(join(tmpdir(), "cg-bench-traces-"));
  const path = join(sharedDirectory, `writer-shaped-${targetBytes}.jsonl`);
  const trace = { path, bytes: generateWriterShapedTrace(path, targetBytes) };
  shared.set(targetBytes, trace);
  return trace;
}

export function removeSharedTraces(): void {
  if (sharedDirectory !== undefined) rmSync(sharedDirectory, { recursive: true, force: true });
  sharedDirectory = undefined;
  shared.clear();
}
