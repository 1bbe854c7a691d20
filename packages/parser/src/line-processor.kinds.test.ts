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

// The golden trace's lines, with line `at` (1-based) replaced.
const golden = readFileSync(join(fixturesDir, "valid/golden-train.jsonl"), "utf8").trimEnd().split("\n");
function goldenWith(at: number, line: string): Uint8Array {
  const lines = golden.slice();
  lines[at - 1] = line;
  return new TextEncoder().encode(`${lines.join("\n")}\n`);
}
const lineOf = (kind: string): number =>
  golden.findIndex((line) => line.startsWith(`{"kind":"${kind}",`)) + 1;

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
    const all = await records(goldenWith(1, golden[0] as string));
    const spansAndOps: EventKind[] = ["span_start", "span_end", "op"];
    // A canonical tensor line with a broken value: never decoded when tensors are left out.
    const tensor = lineOf("tensor");
    const broken = `{"kind":"tensor","span_id":"s3","tensor_id":"t2","shape":[oops]}`;
    await expect(records(goldenWith(tensor, broken))).rejects.toMatchObject({ line: tensor });
    const read = await records(goldenWith(tensor, broken), spansAndOps);
    expect(read).toEqual(only(all, spansAndOps));
    expect(read.map(({ event }) => event.kind)).toContain("op");
    // The same line in another writer's form (a space after the brace) is decoded: it stops a strict read.
    const spaced = `{ ${broken.slice(1)}`;
    await expect(records(goldenWith(tensor, spaced), spansAndOps)).rejects.toMatchObject({ line: tensor });
    // A valid one is checked, then dropped.
    const op = lineOf("op");
    const spacedOp = `{ ${(golden[op - 1] as string).slice(1)}`;
    expect(await records(goldenWith(op, spacedOp), ["span_start"])).toEqual(only(all, ["span_start"]));
    // A broken line of a kind asked for still fails.
    await expect(records(goldenWith(op, '{"kind":"op","span_id":1}'), ["op"])).rejects.toMatchObject({
      line: op,
    });
  });
});
