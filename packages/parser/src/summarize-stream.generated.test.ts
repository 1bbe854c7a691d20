// summarizeStream against the whole-document analyses on generated memory-event orders: whenever it
// says `exact`, every figure must equal the document's; within the reorder window it must be exact.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyzeMemory } from "@cg/memory";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
  analyzeHealth,
  parseTraceText,
  type StreamSummary,
  summarize,
  summarizeStream,
  type TraceDocument,
} from "./index.js";
import { READ_CHUNK_BYTES } from "./node/file-chunks.js";

const HEADER =
  '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"train","timestamp":"t","capture_step":1,"warmup_steps":0,"device":"cpu","timing_mode":"host","tags":{}}\n' +
  '{"kind":"span_start","id":"s1","name":"root","start_ns":0,"span_kind":"function","measured":true}\n' +
  '{"kind":"span_start","id":"s2","parent_id":"s1","name":"back","start_ns":0,"span_kind":"module","step":"backward"}\n';
const FOOTER =
  '{"kind":"span_end","id":"s2","duration_ns":5}\n{"kind":"span_end","id":"s1","duration_ns":10}\n';

interface Memory {
  timestamp: string;
  tensor: string;
  action: "alloc" | "free";
  device: string;
  bytes: string;
  span: string;
  category: string;
}

// Few distinct values so that ties, re-allocations and unpaired frees are common. Timestamps at and
// above 2^53 decode to bigints; 2^53 and 2^53 + 1 round to the same double.
const memoryArbitrary: fc.Arbitrary<Memory> = fc.record({
  timestamp: fc.constantFrom(
    "0",
    "1",
    "2",
    "3",
    "7",
    "9007199254740991",
    "9007199254740992",
    "9007199254740993",
  ),
  tensor: fc.constantFrom("a", "b", "c", "é", "\u{1F600}", "\uFFFF"),
  action: fc.constantFrom("alloc" as const, "free" as const),
  device: fc.constantFrom("cpu", "cuda:0"),
  bytes: fc.constantFrom("1", "100", "18446744073709551615"),
  span: fc.constantFrom("s1", "s2"),
  category: fc.constantFrom("activation", "gradient", "other"),
});

function memoryLine(event: Memory): string {
  return `{"kind":"memory","timestamp_ns":${event.timestamp},"tensor_id":${JSON.stringify(event.tensor)},"span_id":"${event.span}","op_name":"op","device":"${event.device}","bytes":${event.bytes},"action":"${event.action}","dtype":"u8","category":"${event.category}"}\n`;
}

function traceText(events: readonly Memory[]): string {
  return HEADER + events.map(memoryLine).join("") + FOOTER;
}

/** A streamed summary that claims exactness must equal the whole-document analyses. */
function expectDocumentFigures(streamed: StreamSummary, document: TraceDocument): void {
  const { self_times: _selfTimes, ...summary } = summarize(document);
  expect(streamed.summary).toEqual(summary);
  expect(streamed.health).toEqual(analyzeHealth(document));
  expect(streamed.memory).toEqual(
    analyzeMemory(
      { memory: document.memory, spans: document.spans, device_memory: document.device_memory },
      { timeline: false },
    ),
  );
}

async function summarizeChecked(text: string, reorderWindow: number): Promise<StreamSummary> {
  const document = parseTraceText(text);
  const streamed = await summarizeStream({ text }, { reorderWindow });
  if (streamed.exact) expectDocumentFigures(streamed, document);
  return streamed;
}

describe("summarizeStream on generated memory orders", () => {
  // The window is the drawn one, or one that holds every event: then the summary must be exact.
  it.each([
    {
      title: "is exact and equal to the document analyses when the window holds every event",
      holdsAll: true,
    },
    { title: "never claims exactness it does not have, whatever the window", holdsAll: false },
  ])("$title", async ({ holdsAll }) => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(memoryArbitrary, { maxLength: 40 }),
        fc.integer({ min: 1, max: 8 }),
        async (events, drawn) => {
          const window = holdsAll ? Math.max(1, events.length) : drawn;
          const streamed = await summarizeChecked(traceText(events), window);
          if (holdsAll) expect(streamed.exact).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("is exact for nearly sorted input displaced by less than the window", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(memoryArbitrary, { maxLength: 60 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.nat(), { maxLength: 60 }),
        async (events, displacement, swaps) => {
          // Sorted by timestamp only (stable; ties stay in any action and tensor order), then each event
          // moved later by fewer than `displacement` places.
          const sorted = events
            .map((event, index) => ({ event, index }))
            .sort((left, right) => {
              const order = BigInt(left.event.timestamp) - BigInt(right.event.timestamp);
              return order < 0n ? -1 : order > 0n ? 1 : left.index - right.index;
            })
            .map(({ event }) => event);
          const shuffled = sorted.slice();
          for (let index = 0; index + 1 < shuffled.length; index++) {
            const shift = (swaps[index] ?? 0) % displacement;
            const target = Math.min(shuffled.length - 1, index + shift);
            const [moved] = shuffled.splice(index, 1);
            shuffled.splice(target, 0, moved as Memory);
            index = target;
          }
          const streamed = await summarizeChecked(traceText(shuffled), displacement);
          expect(streamed.exact).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reports inexactness when a memory event arrives later than the window", async () => {
    const events: Memory[] = [];
    for (let index = 1; index <= 10; index++) {
      const base = { device: "cpu", bytes: "10", span: "s1", category: "other" };
      events.push({ ...base, timestamp: String(index * 10), tensor: `t${index}`, action: "alloc" });
      events.push({ ...base, timestamp: String(index * 10 + 5), tensor: `t${index}`, action: "free" });
    }
    events.push({
      timestamp: "1",
      tensor: "late",
      action: "alloc",
      device: "cpu",
      bytes: "1000",
      span: "s1",
      category: "other",
    });
    const text = traceText(events);
    const exact = await summarizeChecked(text, 20);
    expect(exact.exact).toBe(true);
    expect(exact.summary.peak_bytes).toBe(1010);
    const inexact = await summarizeStream({ text }, { reorderWindow: 19 });
    expect(inexact.exact).toBe(false);
    expect(inexact.notes[0]).toMatch(/more than 19 events out of timestamp order/);
  });
});

describe("summarizeStream on generated files", () => {
  const folder = mkdtempSync(join(tmpdir(), "cg-parser-stream-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("equals the document analyses on a multi-chunk file with lines longer than a read", async () => {
    let text = HEADER;
    // Longer than a file read (so each is held across chunks), on every 300th allocation.
    const long = "x".repeat(READ_CHUNK_BYTES + 100_000);
    // Tensor ids past the window's inline id storage, some non-ASCII.
    const tensor = (index: number) => (index % 10 === 0 ? `t${index}-${"é".repeat(30)}` : `t${index}`);
    for (let index = 0; index < 3000; index++) {
      const device = index % 3 === 0 ? "cuda:0" : "cpu";
      const time = index * 10 + (index % 7); // writer-shaped: nearly sorted, frees interleaved late
      text += `{"kind":"memory","timestamp_ns":${time},"tensor_id":"${tensor(index)}","span_id":"s${1 + (index % 2)}","op_name":"${index % 300 === 0 ? long : "matmul"}","device":"${device}","bytes":${index * 7},"action":"alloc","dtype":"f32"}\n`;
      if (index >= 3) {
        text += `{"kind":"memory","timestamp_ns":${time + 1},"tensor_id":"${tensor(index - 3)}","span_id":"s1","device":"${device}","bytes":0,"action":"free","dtype":"f32"}\n`;
      }
      if (index % 500 === 0) {
        text += `{"kind":"device_memory","timestamp_ns":${time},"device":"cpu","used_bytes":${index},"free_bytes":1000}\n`;
      }
    }
    text += FOOTER;
    const path = join(folder, "generated.jsonl");
    writeFileSync(path, text);
    const document = parseTraceText(text);
    const streamed = await summarizeStream(path);
    expect(streamed.exact).toBe(true);
    expectDocumentFigures(streamed, document);
    expect(streamed.events).toBe(
      document.memory.length + document.device_memory.length + document.spans.length * 2 + 1,
    );
  });
});
