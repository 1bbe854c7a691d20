// Storage-byte resolution and memory analysis against the obvious naive versions.
import { analyzeMemory, storageBytes } from "@cg/memory";
import type { MemoryEvent } from "@cg/schema";
import { compare } from "./harness.js";

const shapes: number[][] = [
  [32, 32],
  [4096, 4096],
  [8, 128, 768],
  [1, 3, 224, 224],
  [],
  [50257, 768],
  [2, 16, 64, 64],
];
const dtypes = ["f32", "bf16", "f16", "i64", "u8", "f32", "bf16"];
const sizes: Record<string, number> = { f32: 4, bf16: 2, f16: 2, i64: 8, u8: 1 };

function memoryEvents(count: number): MemoryEvent[] {
  const events: MemoryEvent[] = [];
  const live: string[] = [];
  for (let index = 0; events.length < count; index++) {
    const timestamp = index * 10;
    if (live.length > 64 || (live.length > 0 && index % 3 === 0)) {
      const tensorId = live.shift() as string;
      events.push({
        kind: "memory",
        timestamp_ns: timestamp,
        tensor_id: tensorId,
        span_id: "s3",
        device: "cuda:0",
        bytes: 4096,
        action: "free",
        shape: [32, 32],
        dtype: "f32",
        category: "activation",
      });
    } else {
      const tensorId = `t${index}`;
      live.push(tensorId);
      events.push({
        kind: "memory",
        timestamp_ns: timestamp,
        tensor_id: tensorId,
        span_id: "s3",
        op_name: "matmul",
        device: index % 4 === 0 ? "cuda:1" : "cuda:0",
        bytes: 4096,
        action: "alloc",
        shape: [32, 32],
        dtype: "f32",
        category: index % 5 === 0 ? "parameter" : "activation",
      });
    }
  }
  return events;
}

/** A naive live-bytes loop: Map per tensor, plain numbers, no categories, breakdown or timeline. */
function naivePeak(events: readonly MemoryEvent[]): number {
  const sorted = [...events].sort((left, right) => Number(left.timestamp_ns) - Number(right.timestamp_ns));
  const live = new Map<string, number>();
  const perDevice = new Map<string, number>();
  let peak = 0;
  for (const event of sorted) {
    const current = perDevice.get(event.device) ?? 0;
    let next: number;
    if (event.action === "alloc") {
      live.set(event.tensor_id, Number(event.bytes));
      next = current + Number(event.bytes);
    } else {
      const bytes = live.get(event.tensor_id) ?? Number(event.bytes);
      live.delete(event.tensor_id);
      next = Math.max(0, current - bytes);
    }
    perDevice.set(event.device, next);
    if (next > peak) peak = next;
  }
  return peak;
}

export default async function memoryBench(): Promise<void> {
  let sink = 0;
  await compare(
    "storage bytes of 7 typical shapes",
    {
      name: "storageBytes",
      fn: () => {
        for (let index = 0; index < shapes.length; index++)
          sink += Number(storageBytes(shapes[index] as number[], dtypes[index] as string));
      },
    },
    {
      name: "naive reduce * size",
      fn: () => {
        for (let index = 0; index < shapes.length; index++) {
          sink +=
            (shapes[index] as number[]).reduce((a, b) => a * b, 1) * (sizes[dtypes[index] as string] ?? 0);
        }
      },
    },
    { mode: "cost", target: 3 },
  );

  const events = memoryEvents(100_000);
  await compare(
    "memory analysis of 100k events",
    {
      name: "analyzeMemory (with timeline)",
      fn: () => (sink += Number(analyzeMemory({ memory: events }).peak_bytes)),
    },
    { name: "naive Map live-bytes loop", fn: () => (sink += naivePeak(events)) },
    { mode: "cost", timeMs: 3000 },
  );
  await compare(
    "memory analysis of 100k events",
    {
      name: "analyzeMemory (no timeline)",
      fn: () => (sink += Number(analyzeMemory({ memory: events }, { timeline: false }).peak_bytes)),
    },
    { name: "naive Map live-bytes loop", fn: () => (sink += naivePeak(events)) },
    { mode: "cost", timeMs: 3000 },
  );
  if (sink === -1) console.log(sink);
}
