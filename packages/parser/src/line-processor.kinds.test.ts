// `kinds`: a read that delivers only some kinds gives exactly the full read's records of those
// kinds (same line and record numbers), skipping canonical lines of other kinds undecoded.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EVENT_KINDS, type EventKind } from "@cg/schema";
import { fixturesDir } from "@cg/tooling-vitest";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readTraceEvents, type TraceEventRecord } from "./index.js";
import type { TraceSource } from "./trace-source.js";

const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: { file: string; expect: string }[];
};

async function records(source: TraceSource, kinds?: readonly EventKind[]): Promise<TraceEventRecord[]> {
  const read: TraceEventRecord[] = [];
  for await (const record of readTraceEvents(source, kinds === undefined ? {} : { kinds })) read.push(record);
  return read;
}

function only(all: readonly TraceEventRecord[], kinds: readonly EventKind[]): TraceEventRecord[] {
  return all.filter(({ event }) => event.kind === "meta" || kinds.includes(event.kind));
}

const META =
  '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"infer","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}';
const START =
  '{"kind":"span_start","id":"s1","name":"root","start_ns":0,"span_kind":"function","measured":true}';
const OP =
  '{"kind":"op","span_id":"s1","op_name":"matmul","inputs":[],"shape":[2],"dtype":"f32","device":"cpu","duration_ns":5,"timestamp_ns":1}';
const END = '{"kind":"span_end","id":"s1","duration_ns":10}';

describe("reading only some kinds", () => {
  const accepted = manifest.fixtures.filter((entry) => entry.expect !== "invalid");

  it.each(accepted.map((entry) => [entry.file] as const))(
    "gives the full read's records of those kinds for %s, from a file and from text",
    async (file) => {
      const path = join(fixturesDir, file);
      const all = await records(path).catch(() => undefined);
      if (all === undefined) return; // refused in strict mode: covered below with a defect
      const text = readFileSync(path, "utf8");
      await fc.assert(
        fc.asyncProperty(fc.subarray([...EVENT_KINDS]), async (kinds) => {
          expect(await records(path, kinds)).toEqual(only(all, kinds));
          expect(await records({ text }, kinds)).toEqual(only(all, kinds));
        }),
        { numRuns: 12 },
      );
    },
  );

  it("skips canonical lines of other kinds over any chunking of the bytes", async () => {
    const bytes = readFileSync(join(fixturesDir, "valid/golden-train.jsonl"));
    const all = await records(bytes);
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([...EVENT_KINDS]),
        fc.array(fc.integer({ min: 1, max: 120 }), { minLength: 1, maxLength: 6 }),
        async (kinds, cuts) => {
          const chunks: Uint8Array[] = [];
          for (let at = 0, index = 0; at < bytes.length; index++) {
            const size = cuts[index % cuts.length] as number;
            chunks.push(bytes.subarray(at, at + size));
            at += size;
          }
          expect(await records(chunks, kinds)).toEqual(only(all, kinds));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("does not decode a skipped canonical line, but decodes and checks lines in any other form", async () => {
    const encode = (lines: string[]): Uint8Array => new TextEncoder().encode(`${lines.join("\n")}\n`);
    // A canonical tensor line with a broken value: never decoded when tensors are left out.
    const brokenTensor = '{"kind":"tensor","span_id":"s1","tensor_id":"t","shape":[oops]}';
    const trace = encode([META, START, brokenTensor, OP, END]);
    await expect(records(trace)).rejects.toMatchObject({ line: 3 });
    const read = await records(trace, ["span_start", "span_end", "op"]);
    expect(read.map(({ event, line, index }) => [event.kind, line, index])).toEqual([
      ["meta", 1, 0],
      ["span_start", 2, 1],
      ["op", 4, 3],
      ["span_end", 5, 4],
    ]);
    // The same line in another writer's form (a space after the brace) is decoded: its defect stops a strict read.
    const spaced = encode([META, START, `{ ${brokenTensor.slice(1)}`, OP, END]);
    await expect(records(spaced, ["span_start", "span_end", "op"])).rejects.toMatchObject({ line: 3 });
    // ... and, when valid, dropped after its checks; a kind named only as a prefix is not skipped.
    const validSpaced = encode([META, START, `{ ${OP.slice(1)}`, END]);
    expect((await records(validSpaced, ["span_start", "span_end"])).map(({ line }) => line)).toEqual([
      1, 2, 4,
    ]);
    // A broken line of a kind asked for still fails.
    await expect(
      records(encode([META, START, '{"kind":"op","span_id":1}', END]), ["op"]),
    ).rejects.toMatchObject({ line: 3 });
  });
});
