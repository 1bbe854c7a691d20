// decodeTraceLine against bare JSON.parse (what any text reader pays) and against JSON.parse +
// a plain zod 4 schema's safeParse (the obvious alternative); decodeCanonicalLine (tier 0, straight from
// UTF-8 bytes) against JSON.parse of the already decoded text. One op decodes a realistic mix of
// lines: the golden trace plus generated session-shaped lines (spans, ops, tensors, memory,
// gradients), all canonical.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { decodeCanonicalLine, decodeTraceLine } from "@cg/schema";
import { type ContenderFactory, compareInProcesses } from "./process-harness.js";
import { eventTerm } from "./support/consume-event.js";
import { PlainTraceEvent } from "./support/plain-zod-schema.js";

const golden = readFileSync(
  fileURLToPath(new URL("../../fixtures/trace6/valid/golden-train.jsonl", import.meta.url)),
  "utf8",
)
  .split("\n")
  .filter((line) => line !== "");

export function generatedLines(count: number): string[] {
  const lines: string[] = [];
  let clock = 0;
  for (let index = 0; lines.length < count; index++) {
    const span = `s${index + 10}`;
    const tensor = `t${index}`;
    clock += 1000 + (index % 7) * 13;
    lines.push(
      JSON.stringify({
        kind: "span_start",
        id: span,
        parent_id: "s2",
        name: `model/layer-${index % 24}/forward`,
        start_ns: clock,
        span_kind: "op",
        measured: false,
        step: "forward",
      }),
      JSON.stringify({
        kind: "op",
        span_id: span,
        op_name: index % 3 === 0 ? "matmul" : "add",
        inputs: [`t${index - 1}`, `w${index % 24}`],
        output: tensor,
        shape: [32, 128, 768],
        dtype: "bf16",
        device: "cuda:0",
        duration_ns: 1200 + index,
        timestamp_ns: clock + 5,
        storage_bytes: 6291456,
        input_storage_bytes: 12582912,
      }),
      JSON.stringify({
        kind: "tensor",
        span_id: span,
        tensor_id: tensor,
        shape: [32, 128, 768],
        dtype: "bf16",
        device: "cuda:0",
        requires_grad: false,
        storage_bytes: 6291456,
        category: "activation",
      }),
      JSON.stringify({
        kind: "memory",
        timestamp_ns: clock + 5,
        tensor_id: tensor,
        span_id: span,
        op_name: "matmul",
        device: "cuda:0",
        bytes: 6291456,
        action: "alloc",
        shape: [32, 128, 768],
        dtype: "bf16",
        category: "activation",
      }),
      JSON.stringify({ kind: "span_end", id: span, duration_ns: 1500 + (index % 11) }),
    );
    if (index % 5 === 0) {
      lines.push(
        JSON.stringify({
          kind: "gradient",
          event_id: `gradient-${index}`,
          root: "vb",
          key: `layer.${index % 24}.weight`,
          state: "present",
          norm: 0.125 + index / 1000,
        }),
      );
      lines.push(
        JSON.stringify({
          kind: "device_memory",
          timestamp_ns: clock + 9,
          device: "cuda:0",
          used_bytes: 1073741824 + index * 4096,
          free_bytes: 24696061952 - index * 4096,
        }),
      );
    }
  }
  return lines;
}

const lines = [...golden, ...generatedLines(2000)];

/** The same lines as one UTF-8 buffer with each line's range, as a byte reader holds them. */
const utf8 = new TextEncoder().encode(lines.join("\n"));
const ranges: number[] = [];
for (let start = 0; start < utf8.length; ) {
  const lineFeed = utf8.indexOf(10, start);
  const stop = lineFeed === -1 ? utf8.length : lineFeed;
  ranges.push(start, stop);
  start = stop + 1;
}

// Every contender consumes every field of every decoded event (support/consume-event.ts); the
// checksums must agree.

/** Tier 0 where it applies (every line here but the meta line), decodeTraceLine otherwise. */
function decodeCanonicalAll(): number {
  let checksum = 0;
  for (let index = 0; index < ranges.length; index += 2) {
    let event = decodeCanonicalLine(utf8, ranges[index], ranges[index + 1]);
    if (event === undefined) {
      const result = decodeTraceLine(lines[index >> 1] as string);
      if (!result.ok) throw new Error("a benchmark line failed to decode");
      event = result.event;
    }
    checksum = (checksum + eventTerm(event)) | 0;
  }
  return checksum;
}

function decodeAll(): number {
  let checksum = 0;
  for (const line of lines) {
    const result = decodeTraceLine(line);
    if (!result.ok) throw new Error("a benchmark line failed to decode");
    checksum = (checksum + eventTerm(result.event)) | 0;
  }
  return checksum;
}

function parseAll(): number {
  let checksum = 0;
  for (const line of lines) checksum = (checksum + eventTerm(JSON.parse(line))) | 0;
  return checksum;
}

/** A plain zod 4 schema of the nine kinds, written the way a user would (not @cg/schema's own). */
function parseWithZod(): number {
  let checksum = 0;
  for (const line of lines) {
    const result = PlainTraceEvent.safeParse(JSON.parse(line));
    if (!result.success) throw new Error(`zod rejected a line: ${result.error.message}`);
    checksum = (checksum + eventTerm(result.data)) | 0;
  }
  return checksum;
}

function contender(decode: () => number): ContenderFactory {
  return () => ({
    run(count) {
      let checksum = 0;
      for (let index = 0; index < count; index++) checksum = decode();
      return checksum;
    },
  });
}

export const groups = {
  decoders: {
    decodeTraceLine: contender(decodeAll),
    "JSON.parse": contender(parseAll),
    "JSON.parse + plain zod": contender(parseWithZod),
    decodeCanonicalLine: contender(decodeCanonicalAll),
  },
};

export default async function run(): Promise<void> {
  await compareInProcesses({
    title: `decode ${lines.length} lines (golden trace + session-shaped lines), every field consumed`,
    module: import.meta.url,
    group: "decoders",
    contenders: Object.keys(groups.decoders),
    operations: 40,
    // One operation decodes all the lines; the loop turns after each.
    turnEvery: 1,
    sameChecksum: Object.keys(groups.decoders),
    comparisons: [
      {
        subject: "decodeCanonicalLine",
        baseline: "JSON.parse",
        mode: "speedup",
        target: 1,
        note: "from UTF-8 bytes vs JSON.parse of the decoded text",
      },
      { subject: "decodeTraceLine", baseline: "JSON.parse", mode: "cost", target: 1.25 },
      { subject: "decodeTraceLine", baseline: "JSON.parse + plain zod", mode: "speedup", target: 2 },
    ],
  });
}
