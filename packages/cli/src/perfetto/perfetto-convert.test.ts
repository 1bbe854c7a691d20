import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readColumnBatches, readTraceEvents, type TraceSource } from "@cg/parser";
import { ColumnBatch } from "@cg/schema/core";
import { fixturesDir } from "@cg/tooling-vitest";
import { type TraceEvent, TraceEvent as TraceEventSchema } from "@cg/trace";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ChromeTrace, checkPerfettoRules } from "../../test/perfetto-rules.js";
import {
  convertBatchesToPerfetto,
  convertToPerfetto,
  type PerfettoConvertOptions,
} from "./perfetto-convert.js";

function eventsOf(lines: string[]): TraceEvent[] {
  return lines.filter((line) => line.trim() !== "").map((line) => TraceEventSchema.parse(JSON.parse(line)));
}

function fixtureEvents(name: string): TraceEvent[] {
  return eventsOf(readFileSync(join(fixturesDir, name), "utf8").split("\n"));
}

async function convert(events: TraceEvent[], options: PerfettoConvertOptions = {}) {
  let text = "";
  const stats = await convertToPerfetto(
    events,
    (chunk) => {
      text += chunk;
    },
    options,
  );
  return { text, stats, trace: JSON.parse(text) as ChromeTrace };
}

const meta = `{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"train","timestamp":"2025-01-01T00:00:00.000Z","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{"batch":"8"}}`;

describe("convertToPerfetto", () => {
  it("converts the golden trace with microsecond units, nested spans and separate op tracks", async () => {
    const { trace, stats } = await convert(fixtureEvents("valid/golden-train.jsonl"), { converter: "test" });
    const tracks = checkPerfettoRules(trace);
    expect(stats).toMatchObject({ spans: 5, ops: 1, memoryEvents: 2, deviceMemorySamples: 1 });
    expect(trace.otherData).toMatchObject({
      run_id: "run-4242-1754330400123456789",
      entrypoint: "demo::train::update",
      capture_step: "1",
      measured_region_device_synchronized: "true",
      "tag.physical_batch": "128",
      converter: "test",
    });
    const forward = trace.traceEvents.find((event) => event.name === "demo/update-000000000001/forward")!;
    expect(forward).toMatchObject({ ph: "X", ts: 2, dur: 30, tid: 1, cat: "forward" });
    const op = trace.traceEvents.find((event) => event.name === "matmul")!;
    expect(op).toMatchObject({ ph: "X", ts: 5, dur: 1.2, tid: 1001 });
    expect(op.args).toMatchObject({ storage_bytes: 4096 });
    expect(op.args).not.toHaveProperty("span_id");
    // All five spans share one track because they nest; the op has its own.
    expect([...tracks.keys()].sort()).toEqual(["1/1", "1/1001"]);
    const counters = trace.traceEvents.filter((event) => event.ph === "C");
    expect(counters.map((event) => [event.name, event.ts, event.args])).toEqual([
      ["device_memory cuda:0 used", 88, { bytes: 1073741824 }],
      ["device_memory cuda:0 free", 88, { bytes: 24696061952 }],
      ["memory cuda:0 total", 5, { bytes: 4096 }],
      ["memory cuda:0 activation", 5, { bytes: 4096 }],
      ["memory cuda:0 total", 70, { bytes: 0 }],
      ["memory cuda:0 activation", 70, { bytes: 0 }],
    ]);
  });

  it("keeps per-call ids out of slice args, on an instant Perfetto nests under the slice", async () => {
    const lines = [
      meta,
      `{"kind":"span_start","id":"s1","name":"root","start_ns":0,"span_kind":"function","measured":true,"step":"forward"}`,
    ];
    for (let call = 0; call < 3; call += 1) {
      lines.push(
        `{"kind":"span_start","id":"layer-${call}","parent_id":"s1","name":"layer","start_ns":${100 * call + 10},"span_kind":"module"}`,
        `{"kind":"op","span_id":"layer-${call}","op_name":"matmul","inputs":["x${call}","w"],"output":"y${call}","shape":[2,3],"dtype":"f32","device":"cpu","duration_ns":${1000 + call},"timestamp_ns":${100 * call + 20}}`,
        `{"kind":"span_end","id":"layer-${call}","duration_ns":50}`,
      );
    }
    lines.push(`{"kind":"span_end","id":"s1","duration_ns":400}`);
    const { trace } = await convert(eventsOf(lines));
    checkPerfettoRules(trace);
    const events = trace.traceEvents;
    const matmuls = events.filter((event) => event.name === "matmul");
    const layers = events.filter((event) => event.name === "layer");
    // What speedscope keys a frame on (name + args) is the same for every call.
    for (const group of [matmuls, layers]) {
      expect(group).toHaveLength(3);
      expect(new Set(group.map((event) => `${event.name} ${JSON.stringify(event.args)}`)).size).toBe(1);
    }
    expect(matmuls[0]!.args).toEqual({
      shape: "[2,3]",
      dtype: "f32",
      device: "cpu",
      storage_bytes: 24,
      input_storage_bytes: 0,
    });
    expect(layers[0]!.args).toEqual({ span_kind: "module", measured: false });
    // Each call's ids sit right after its slice, at its start on its track.
    const idsAfter = (slice: (typeof events)[number]) => events[events.indexOf(slice) + 1]!;
    expect(matmuls.map((op) => idsAfter(op))).toEqual(
      matmuls.map((op, call) => ({
        name: "ids",
        cat: "op",
        ph: "i",
        s: "t",
        ts: op.ts,
        pid: 1,
        tid: op.tid,
        args: { span_id: `layer-${call}`, output: `y${call}`, inputs: `x${call},w` },
      })),
    );
    expect(layers.map((span) => idsAfter(span).args)).toEqual(
      [0, 1, 2].map((call) => ({ id: `layer-${call}`, parent_id: "s1" })),
    );
    const root = events.find((event) => event.name === "root")!;
    expect(root.args).toEqual({ span_kind: "function", measured: true, step: "forward" });
    expect(idsAfter(root)).toMatchObject({ cat: "forward", args: { id: "s1" } });
  });

  it("keeps sub-microsecond digits exactly, also beyond 2^53 ns", async () => {
    const { text } = await convert([
      ...eventsOf([meta]),
      {
        kind: "device_memory",
        timestamp_ns: 9007199254740993n,
        device: "cpu",
        used_bytes: 18446744073709551615n,
        free_bytes: 1,
      },
      ...eventsOf([
        `{"kind":"span_start","id":"s1","name":"root","start_ns":1,"span_kind":"function","measured":true}`,
        `{"kind":"span_end","id":"s1","duration_ns":1234567}`,
      ]),
    ]);
    expect(text).toContain(`"ts":9007199254740.993`);
    expect(text).toContain(`"bytes":18446744073709551615}`);
    expect(text).toContain(`"ts":0.001,"dur":1234.567`);
  });

  it("escapes every string and writes run metadata in otherData", async () => {
    const nasty = 'a"b\\c\nd\u0001e\u2028f</script>';
    const lines = [
      meta
        .replace('"entrypoint":"e"', `"entrypoint":${JSON.stringify(nasty)}`)
        .replace('"batch":"8"', `${JSON.stringify(nasty)}:${JSON.stringify(nasty)}`),
      `{"kind":"span_start","id":${JSON.stringify(nasty)},"name":${JSON.stringify(nasty)},"start_ns":0,"span_kind":"function","measured":true}`,
      `{"kind":"op","span_id":${JSON.stringify(nasty)},"op_name":${JSON.stringify(nasty)},"dtype":"f32","device":${JSON.stringify(nasty)},"duration_ns":5}`,
      `{"kind":"span_end","id":${JSON.stringify(nasty)},"duration_ns":10}`,
    ];
    const { trace, text } = await convert(eventsOf(lines));
    checkPerfettoRules(trace);
    // Only the line breaks between events are raw control characters.
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(trace.otherData.entrypoint).toBe(nasty);
    expect(trace.otherData[`tag.${nasty}`]).toBe(nasty);
    expect(trace.traceEvents.filter((event) => event.name === nasty).map((event) => event.ph)).toEqual([
      "X",
      "X",
    ]);
    const ids = trace.traceEvents.filter((event) => event.ph === "i").map((event) => event.args);
    expect(ids).toEqual([{ span_id: nasty }, { id: nasty }]);
  });

  it("moves concurrent and badly nested spans to other lanes so every track nests", async () => {
    const lines = [
      meta,
      `{"kind":"span_start","id":"s1","name":"root","start_ns":0,"span_kind":"function","measured":true}`,
      // Two overlapping concurrent children.
      `{"kind":"span_start","id":"a","parent_id":"s1","name":"a","start_ns":10,"span_kind":"function"}`,
      `{"kind":"span_start","id":"b","parent_id":"s1","name":"b","start_ns":20,"span_kind":"function"}`,
      `{"kind":"span_end","id":"a","duration_ns":30}`,
      `{"kind":"span_end","id":"b","duration_ns":30}`,
      // A child that ends after its parent.
      `{"kind":"span_start","id":"p","parent_id":"s1","name":"p","start_ns":60,"span_kind":"function"}`,
      `{"kind":"span_start","id":"q","parent_id":"p","name":"q","start_ns":61,"span_kind":"function"}`,
      `{"kind":"span_end","id":"q","duration_ns":100}`,
      `{"kind":"span_end","id":"p","duration_ns":10}`,
      // Overlapping ops, given out of time order.
      `{"kind":"op","span_id":"s1","op_name":"o1","dtype":"f32","device":"cpu","duration_ns":50,"timestamp_ns":100}`,
      `{"kind":"op","span_id":"s1","op_name":"o2","dtype":"f32","device":"cpu","duration_ns":50,"timestamp_ns":120}`,
      `{"kind":"op","span_id":"s1","op_name":"o3","dtype":"f32","device":"cpu","duration_ns":5,"timestamp_ns":1}`,
      `{"kind":"span_end","id":"s1","duration_ns":150}`,
      // Never closed: drawn with zero duration.
      `{"kind":"span_start","id":"z","name":"z","start_ns":5,"span_kind":"op"}`,
    ];
    const { trace, stats } = await convert(eventsOf(lines));
    checkPerfettoRules(trace);
    expect(stats.spans).toBe(6);
    expect(stats.spanTracks).toBeGreaterThan(1);
    expect(stats.opTracks).toBe(2);
    const open = trace.traceEvents.find((event) => event.name === "z")!;
    expect(open).toMatchObject({ dur: 0, args: { closed: false } });
  });

  it("sorts memory counters in analysis order, spilling to disk with the same result", async () => {
    const memory = (timestamp: number, tensor: string, action: string, bytes: number, category: string) =>
      `{"kind":"memory","timestamp_ns":${timestamp},"tensor_id":"${tensor}","span_id":"s1","device":"cpu","bytes":${bytes},"action":"${action}","dtype":"f32","category":"${category}"}`;
    const lines = [
      meta,
      `{"kind":"span_start","id":"s1","name":"root","start_ns":0,"span_kind":"function","measured":true}`,
    ];
    // Out of file order; at equal timestamps the alloc comes first.
    for (let index = 40; index >= 0; index -= 1) {
      lines.push(memory(index * 10 + 10, `t${index}`, "free", 4, "activation"));
      lines.push(memory(index * 10 + 10, `u${index}`, "alloc", 8, "gradient"));
      lines.push(memory(index * 10, `t${index}`, "alloc", 4, "activation"));
    }
    lines.push(`{"kind":"span_end","id":"s1","duration_ns":1000}`);
    const inMemory = await convert(eventsOf(lines));
    const spilled = await convert(eventsOf(lines), { memorySortChunkSize: 7 });
    expect(inMemory.stats.spilledMemoryRuns).toBe(0);
    expect(spilled.stats.spilledMemoryRuns).toBeGreaterThan(1);
    expect(spilled.text).toBe(inMemory.text);
    const totals = inMemory.trace.traceEvents.filter((event) => event.name === "memory cpu total");
    const timestamps = totals.map((event) => event.ts!);
    expect(timestamps).toEqual([...timestamps].sort((a, b) => a - b));
    // At 10 the allocs come first, by tensor id: t1 (+4), u0 (+8), then the free of t0 (−4).
    expect(totals.slice(0, 4).map((event) => event.args!.bytes)).toEqual([4, 8, 16, 12]);
    expect(totals.at(-1)!.args!.bytes).toBe(41 * 8);
    const gradient = inMemory.trace.traceEvents.filter((event) => event.name === "memory cpu gradient");
    expect(gradient.at(-1)!.args!.bytes).toBe(41 * 8);
  });

  it("replays memory by the memory timeline's rules: a free never creates a category on its device", async () => {
    const memory = (timestamp: number, device: string, action: string, bytes: number) =>
      `{"kind":"memory","timestamp_ns":${timestamp},"tensor_id":"t1","span_id":"s1","device":"${device}","bytes":${bytes},"action":"${action}","dtype":"f32","category":"activation"}`;
    const lines = [
      meta,
      `{"kind":"span_start","id":"s1","name":"root","start_ns":0,"span_kind":"function","measured":true}`,
      memory(10, "cuda:0", "alloc", 8),
      // Freed on another device (spec §17 Q5): that device's total drops, its categories stay untouched.
      memory(20, "cpu", "free", 8),
      memory(30, "cpu", "alloc", 0),
      `{"kind":"span_end","id":"s1","duration_ns":100}`,
    ];
    const { trace } = await convert(eventsOf(lines));
    const counters = trace.traceEvents.filter((event) => event.ph === "C");
    expect(counters.map((event) => [event.name, event.ts, event.args])).toEqual([
      ["memory cuda:0 total", 0.01, { bytes: 8 }],
      ["memory cuda:0 activation", 0.01, { bytes: 8 }],
      ["memory cpu total", 0.02, { bytes: 0 }],
      // An alloc reports its category, even of 0 bytes.
      ["memory cpu total", 0.03, { bytes: 0 }],
      ["memory cpu activation", 0.03, { bytes: 0 }],
    ]);
  });

  it("rejects a stream that does not start with meta", async () => {
    await expect(convert(eventsOf([`{"kind":"span_end","id":"s1"}`]))).rejects.toThrow(
      /first event must be meta/,
    );
  });
});

/** A JSON line of these members (absent ones left out), bigints written as exact digits. */
function jsonLine(members: Record<string, unknown>): string {
  const value = (item: unknown): string =>
    typeof item === "bigint"
      ? String(item)
      : Array.isArray(item)
        ? `[${item.map(value).join(",")}]`
        : JSON.stringify(item);
  const present = Object.entries(members).filter(([, item]) => item !== undefined);
  return `{${present.map(([key, item]) => `${JSON.stringify(key)}:${value(item)}`).join(",")}}`;
}

/** Both converters over one source: the text each writes, or the message each throws. */
async function bothWays(source: () => TraceSource, batchSize: number) {
  const run = async (convertWith: (write: (text: string) => void) => Promise<unknown>) => {
    let text = "";
    try {
      await convertWith((chunk) => {
        text += chunk;
      });
      return { text };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };
  const events = await run((write) =>
    convertToPerfetto(
      (async function* () {
        for await (const record of readTraceEvents(source())) yield record.event;
      })(),
      write,
    ),
  );
  const batches = await run((write) =>
    convertBatchesToPerfetto(readColumnBatches(source(), { batchSize }), write),
  );
  return { events, batches };
}

describe("convertBatchesToPerfetto", () => {
  const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
    fixtures: Array<{ file: string; expect: string }>;
  };
  const accepted = manifest.fixtures
    .filter((entry) => entry.expect !== "parse_error")
    .map((entry) => entry.file);

  it.each(accepted)("writes what convertToPerfetto writes for %s", async (file) => {
    for (const batchSize of [1, 3, 8192]) {
      const { events, batches } = await bothWays(() => join(fixturesDir, file), batchSize);
      expect(batches).toEqual(events);
    }
  });

  it("writes what convertToPerfetto writes for any ops, tensors and memory events", async () => {
    const id = fc.constantFrom("", "t1", "t2", "w", "x,y", "é");
    const u64 = fc.oneof(fc.nat(1_000_000), fc.bigInt({ min: 2n ** 53n, max: 2n ** 64n - 1n }));
    const op = fc.record({
      inputs: fc.array(id, { maxLength: 3 }),
      output: fc.option(id, { nil: undefined }),
      shape: fc.array(fc.oneof(fc.nat(64), fc.constant(2n ** 60n)), { maxLength: 3 }),
      dtype: fc.constantFrom("f32", "bf16", "u8"),
      duration: fc.nat(1_000_000),
      timestamp: u64,
      storage: fc.option(u64, { nil: undefined }),
      inputStorage: fc.option(u64, { nil: undefined }),
    });
    const memory = fc.record({
      timestamp: u64,
      tensor: id,
      device: fc.constantFrom("cpu", "cuda:0"),
      bytes: u64,
      alloc: fc.boolean(),
      category: fc.option(fc.constantFrom("activation", "gradient", "optimizer", "other", "parameter"), {
        nil: undefined,
      }),
    });
    const line = fc.oneof(
      op.map((value) =>
        jsonLine({
          kind: "op",
          span_id: "s1",
          op_name: "matmul",
          inputs: value.inputs,
          output: value.output,
          shape: value.shape,
          dtype: value.dtype,
          device: "cpu",
          duration_ns: value.duration,
          timestamp_ns: value.timestamp,
          storage_bytes: value.storage,
          input_storage_bytes: value.inputStorage,
        }),
      ),
      memory.map((value) =>
        jsonLine({
          kind: "memory",
          timestamp_ns: value.timestamp,
          tensor_id: value.tensor,
          span_id: "s1",
          device: value.device,
          bytes: value.bytes,
          action: value.alloc ? "alloc" : "free",
          dtype: "f32",
          category: value.category,
        }),
      ),
      fc.constant(
        `{"kind":"tensor","span_id":"s1","tensor_id":"t1","shape":[2],"dtype":"f32","device":"cpu"}`,
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 12 }),
        fc.integer({ min: 1, max: 5 }),
        async (lines, batchSize) => {
          const text = [
            meta,
            `{"kind":"span_start","id":"s1","name":"root","start_ns":0,"span_kind":"function","measured":true}`,
            ...lines,
            `{"kind":"span_end","id":"s1","duration_ns":10}`,
          ].join("\n");
          const { events, batches } = await bothWays(() => ({ text: `${text}\n` }), batchSize);
          expect(events).not.toHaveProperty("error");
          expect(batches).toEqual(events);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("refuses a stream whose first event is not meta, as convertToPerfetto does", async () => {
    const batches = [
      (() => {
        const batch = new ColumnBatch();
        batch.appendEvent(
          {
            kind: "tensor",
            span_id: "s1",
            tensor_id: "t1",
            shape: [2],
            dtype: "f32",
            device: "cpu",
            requires_grad: false,
            category: "activation",
          },
          1,
          0,
        );
        return batch;
      })(),
    ];
    await expect(convertBatchesToPerfetto(batches, () => {})).rejects.toThrow(
      /first event must be meta, found tensor/,
    );
  });
});
