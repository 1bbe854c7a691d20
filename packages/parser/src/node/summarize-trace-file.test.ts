import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { Worker } from "node:worker_threads";
import { encodeTraceEvent, type TraceEvent } from "@cg/schema";
import { fixturesDir } from "@cg/tooling-vitest";
import { afterAll, describe, expect, it } from "vitest";
import { type StreamSummaryOptions, summarizeStream } from "../index.js";
import { TraceParseError } from "../trace-parse-error.js";
import { RangeWorkerPool } from "./range-worker-pool.js";
import { startRangeWorker } from "./range-worker-script.js";
import { summarizeTraceFile } from "./summarize-trace-file.js";

const directory = mkdtempSync(join(tmpdir(), "cg-parallel-"));
// Threads shared by the tests (starting them from TypeScript sources is slow).
const pool = new RangeWorkerPool(2);
afterAll(async () => {
  await pool.close();
  rmSync(directory, { recursive: true, force: true });
});

/** A trace of `layers` spans, each with ops, tensors and alloc/free pairs; `extra` lines at line `at`. */
function layeredTrace(
  layers: number,
  extra: { at: number; lines: readonly string[] } = { at: 0, lines: [] },
): string {
  const golden = readFileSync(join(fixturesDir, "valid/golden-train.jsonl"), "utf8").split("\n");
  const root = {
    kind: "span_start",
    id: "root",
    name: "train",
    start_ns: 0,
    span_kind: "function",
    measured: true,
  } as const;
  const lines = [golden[0] as string, encodeTraceEvent(root)];
  let clock = 1;
  for (let layer = 0; layer < layers; layer++) {
    const id = `layer-${layer}`;
    const step = (["forward", "backward", "optimizer"] as const)[layer % 3];
    const start = clock;
    lines.push(
      encodeTraceEvent({
        kind: "span_start",
        id,
        name: `model/${id}`,
        start_ns: start,
        span_kind: "module",
        parent_id: "root",
        measured: false,
        step,
      }),
    );
    for (let op = 0; op < 6; op++) {
      clock += 10;
      const tensor = `t${layer}-${op}`;
      const common = { shape: [4, op + 1], dtype: "f32", device: "cuda:0" };
      lines.push(
        encodeTraceEvent({
          kind: "op",
          span_id: id,
          op_name: op % 2 ? "add" : "matmul",
          inputs: [],
          output: tensor,
          ...common,
          duration_ns: 5 + ((layer * 7 + op) % 11),
          input_storage_bytes: 0,
          timestamp_ns: clock,
        }),
      );
      lines.push(
        encodeTraceEvent({
          kind: "tensor",
          span_id: id,
          tensor_id: tensor,
          ...common,
          requires_grad: false,
          storage_bytes: 16 * (op + 1),
          category: "activation",
        }),
      );
      const memory = {
        kind: "memory" as const,
        timestamp_ns: clock,
        tensor_id: tensor,
        span_id: id,
        op_name: "matmul",
        bytes: 16 * (op + 1),
        ...common,
        category: "activation" as const,
      };
      lines.push(encodeTraceEvent({ ...memory, action: "alloc" }));
      if (op % 3 !== 0) lines.push(encodeTraceEvent({ ...memory, timestamp_ns: clock + 5, action: "free" }));
    }
    clock += 10;
    lines.push(encodeTraceEvent({ kind: "span_end", id, duration_ns: clock - start }));
  }
  lines.push(encodeTraceEvent({ kind: "span_end", id: "root", duration_ns: clock }));
  lines.splice(extra.at, 0, ...extra.lines);
  return `${lines.join("\n")}\n`;
}

function write(name: string, text: string | Uint8Array): string {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
}

async function outcome(
  read: (options: StreamSummaryOptions) => Promise<unknown>,
  options: StreamSummaryOptions,
) {
  const diagnostics: unknown[] = [];
  const events: TraceEvent[] = [];
  const full = {
    ...options,
    onDiagnostic: (error: TraceParseError) => {
      const { code, message, line, index, field } = error;
      diagnostics.push({ code, message, line, index, field });
    },
    ...(options.onEvent === undefined ? {} : { onEvent: (event: TraceEvent) => events.push(event) }),
  };
  try {
    return { result: await read(full), diagnostics, events };
  } catch (error) {
    if (!TraceParseError.isInstance(error)) throw error;
    const { code, message, line, index, field, file } = error;
    return { error: { code, message, line, index, field, file }, diagnostics, events };
  }
}

async function expectSequentialResult(path: string, options: StreamSummaryOptions, rangeBytes: number) {
  const expected = await outcome((full) => summarizeStream(path, full), options);
  const parallel = await outcome(
    (full) => summarizeTraceFile(path, { ...full, pool, rangeBytes, parallelMinBytes: 0 }),
    options,
  );
  expect(parallel).toEqual(expected);
  expect(isDeepStrictEqual(parallel, expected)).toBe(true);
  return expected;
}

// Worker threads started from TypeScript sources are slow to start on a loaded machine.
describe("summarizeTraceFile on worker threads", { timeout: 120_000 }, () => {
  it("equals summarizeStream for a layered trace, strict and lenient, with every kind of caller", async () => {
    const path = write("layered.jsonl", layeredTrace(150));
    for (const mode of ["strict", "lenient"] as const) {
      for (const extra of [{}, { rankLimit: 4 }, { onEvent: () => {} }]) {
        const expected = await expectSequentialResult(path, { mode, ...extra }, 4096);
        const { result } = expected as { result: { events: number; health: { trusted: boolean } } };
        expect(result.events).toBeGreaterThan(2500);
        expect(result.health.trusted).toBe(true);
      }
    }
  });

  it("reports a bad line deep in the file with the sequential line number, field and message", async () => {
    const lines = ['{"kind":"op","span_id":"layer-200"}', '{"kind":"span_start","id":"layer-3"}'];
    const path = write("broken.jsonl", layeredTrace(300, { at: 4000, lines }));
    const strict = await expectSequentialResult(path, { mode: "strict" }, 4096);
    expect((strict as { error: { line: number } }).error.line).toBe(4001);
    const lenient = await expectSequentialResult(path, { mode: "lenient" }, 4096);
    expect((lenient as { diagnostics: unknown[] }).diagnostics.length).toBeGreaterThan(0);
  });

  it("reports ordering errors found only across ranges (a duplicate span, meta not first)", async () => {
    const duplicate = encodeTraceEvent({
      kind: "span_start",
      id: "layer-1",
      name: "again",
      start_ns: 1,
      span_kind: "module",
      measured: false,
    });
    for (const [name, extra] of [
      ["duplicate.jsonl", { at: 3000, lines: [duplicate] }],
      [
        "meta-late.jsonl",
        {
          at: 2500,
          lines: [
            readFileSync(join(fixturesDir, "valid/golden-train.jsonl"), "utf8").split("\n")[0] as string,
          ],
        },
      ],
    ] as const) {
      const path = write(name, layeredTrace(200, extra));
      for (const mode of ["strict", "lenient"] as const) await expectSequentialResult(path, { mode }, 2048);
    }
  });

  it("starts and stops threads of its own", async () => {
    const path = write("own-threads.jsonl", layeredTrace(100));
    const expected = await summarizeStream(path);
    expect(await summarizeTraceFile(path, { workers: 2, rangeBytes: 8192, parallelMinBytes: 0 })).toEqual(
      expected,
    );
  });

  it("reads small files and one worker sequentially, as summarizeStream", async () => {
    const path = write("small.jsonl", layeredTrace(10));
    const expected = await summarizeStream(path);
    expect(await summarizeTraceFile(path, { workers: 1, parallelMinBytes: 0 })).toEqual(expected);
    expect(await summarizeTraceFile(path, { workers: 4 })).toEqual(expected);
  });

  it("equals summarizeStream on the shared fixtures, cut into ranges of a line or two", async () => {
    const manifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
      fixtures: { file: string }[];
    };
    // The in-memory test (range-merger.test.ts) also covers every fixture at every cut.
    for (const { file } of manifest.fixtures) {
      for (const mode of ["strict", "lenient"] as const) {
        await expectSequentialResult(join(fixturesDir, file), { mode }, 64);
      }
    }
  });
});

/** Threads that fail as real ones can: `fault` turns the `index`-th started thread into a failing one. */
function faultyPool(fault: (index: number) => Worker | undefined): RangeWorkerPool {
  let started = 0;
  return new RangeWorkerPool(2, () => fault(started++) ?? startRangeWorker());
}

/** A thread that runs `body` on its first range (from source: no tsx needed). */
function failingThread(body: string): Worker {
  const source = `require("node:worker_threads").parentPort.on("message", () => { ${body} });`;
  return new Worker(source, { eval: true });
}

/** A real range worker that is terminated right after its `jobs`-th range was sent to it. */
function terminatedThread(jobs: number): Worker {
  const worker = startRangeWorker();
  const post = worker.postMessage.bind(worker);
  let sent = 0;
  worker.postMessage = (job: unknown) => {
    post(job);
    if (++sent === jobs) void worker.terminate();
  };
  return worker;
}

describe("summarizeTraceFile when a thread dies", { timeout: 120_000 }, () => {
  const faults: [string, (index: number) => Worker | undefined][] = [
    [
      "throws on its range",
      (index) => (index === 1 ? failingThread('throw new Error("decoder crashed")') : undefined),
    ],
    ["exits on its range", (index) => (index === 0 ? failingThread("process.exit(7)") : undefined)],
    ["is terminated mid-range", (index) => (index === 1 ? terminatedThread(3) : undefined)],
    [
      "is gone before its first range",
      (index) => {
        if (index !== 0) return undefined;
        const worker = startRangeWorker();
        void worker.terminate();
        return worker;
      },
    ],
  ];

  it.each(faults)(
    "reads the rest on the main thread when a thread %s (never a partial result)",
    async (_name, fault) => {
      const path = write("dying.jsonl", layeredTrace(150));
      const broken = write(
        "dying-broken.jsonl",
        layeredTrace(300, { at: 4000, lines: ['{"kind":"op","span_id":"layer-200"}'] }),
      );
      for (const [file, mode] of [
        [path, "strict"],
        [broken, "strict"],
        [broken, "lenient"],
      ] as const) {
        const threads = faultyPool(fault);
        try {
          const expected = await outcome((full) => summarizeStream(file, full), { mode });
          const parallel = await outcome(
            (full) =>
              summarizeTraceFile(file, { ...full, pool: threads, rangeBytes: 4096, parallelMinBytes: 0 }),
            { mode },
          );
          expect(isDeepStrictEqual(parallel, expected)).toBe(true);
        } finally {
          await threads.close();
        }
      }
    },
  );

  it("refuses work after close instead of waiting for a reply", async () => {
    const threads = new RangeWorkerPool(1);
    await threads.close();
    const path = write("closed.jsonl", layeredTrace(50));
    expect(await summarizeTraceFile(path, { pool: threads, rangeBytes: 4096, parallelMinBytes: 0 })).toEqual(
      await summarizeStream(path),
    );
  });
});
