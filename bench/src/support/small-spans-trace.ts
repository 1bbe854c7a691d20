// A generated trace of many small spans (never committed), the shape that stresses what a reader
// must hold per span: a root and a measured span, then `spanCount` leaf spans under the measured
// one, each opened and closed with one op, in the writer's canonical form.
import { encodeTraceEvent, SCHEMA } from "@cg/schema";
import { openLineFile } from "./line-file.js";

const NAMES = ["matmul", "add", "relu", "softmax", "layer_norm", "gelu", "conv2d", "dropout"];

/** Writes the trace to `path`; returns the bytes written. */
export function generateSmallSpansTrace(path: string, spanCount: number, opsPerSpan = 0): number {
  const file = openLineFile(path);
  const emit = (line: string): void => file.emit(line);
  emit(
    encodeTraceEvent({
      kind: "meta",
      schema: SCHEMA,
      run_id: "run-1-0",
      correlation_id: "spans::infer/update-1",
      entrypoint: "spans::infer",
      phase: "infer",
      timestamp: "2025-01-01T00:00:00.000Z",
      capture_step: 1,
      warmup_steps: 0,
      device: "cpu",
      measured_region_device_synchronized: true,
      timing_mode: "host",
      tags: {},
    }),
  );
  const clockEnd = 10 + spanCount * (20 + opsPerSpan * 10);
  emit(
    '{"kind":"span_start","id":"s1","name":"spans::infer","start_ns":0,"span_kind":"function","measured":false}',
  );
  emit(
    '{"kind":"span_start","id":"s2","parent_id":"s1","name":"step","start_ns":1,"span_kind":"function","measured":true}',
  );
  let clock = 10;
  for (let index = 0; index < spanCount; index++) {
    const id = `s${index + 3}`;
    const name = NAMES[index % NAMES.length] as string;
    const start = clock;
    emit(
      encodeTraceEvent({
        kind: "span_start",
        id,
        parent_id: "s2",
        name,
        start_ns: start,
        span_kind: "op",
        measured: false,
      }),
    );
    for (let op = 0; op < opsPerSpan; op++) {
      clock += 10;
      emit(
        encodeTraceEvent({
          kind: "op",
          span_id: id,
          op_name: name,
          inputs: [],
          output: `t${index}_${op}`,
          shape: [8],
          dtype: "f32",
          device: "cpu",
          duration_ns: 8,
          timestamp_ns: clock,
          input_storage_bytes: 0,
        }),
      );
    }
    clock += 20;
    emit(encodeTraceEvent({ kind: "span_end", id, duration_ns: clock - start - 1 }));
  }
  emit(`{"kind":"span_end","id":"s2","duration_ns":${clockEnd}}`);
  emit(`{"kind":"span_end","id":"s1","duration_ns":${clockEnd + 1}}`);
  return file.close();
}
