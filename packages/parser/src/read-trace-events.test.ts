import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { fixturesDir } from "@cg/tooling-vitest";
import { describe, expect, it } from "vitest";
import { parseTrace, parseTraceText, readTraceBatches, readTraceEvents, TraceParseError } from "./index.js";

const golden = readFileSync(join(fixturesDir, "valid/golden-train.jsonl"));
const goldenText = golden.toString("utf8");
const meta = goldenText.slice(0, goldenText.indexOf("\n") + 1);

function failure(run: () => unknown): TraceParseError {
  try {
    run();
  } catch (error) {
    if (TraceParseError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a TraceParseError");
}

async function collect(source: Parameters<typeof readTraceEvents>[0]) {
  const records = [];
  for await (const record of readTraceEvents(source)) records.push(record);
  return records;
}

describe("readTraceEvents sources", () => {
  it("gives the same events with lines and indexes from every kind of source", async () => {
    const path = join(fixturesDir, "valid/blank-lines-crlf.jsonl");
    const bytes = readFileSync(path);
    const expected = await collect(path);
    expect(expected[0]).toMatchObject({ line: 1, index: 0, event: { kind: "meta" } });
    expect(expected.map((record) => record.index)).toEqual(expected.map((_, index) => index));
    // One byte at a time splits CRLF pairs and multi-byte characters across chunks.
    const byteChunks = Array.from(bytes, (byte) => Uint8Array.of(byte));
    const web = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 7)
          controller.enqueue(bytes.subarray(offset, offset + 7));
        controller.close();
      },
    });
    for (const source of [
      { text: bytes.toString("utf8") },
      new Uint8Array(bytes),
      new URL(`file://${path}`),
      Readable.from(byteChunks),
      Readable.from([bytes.toString("utf8")]),
      web,
    ]) {
      expect(await collect(source)).toEqual(expected);
    }
  });

  it("decodes a bounded number of events ahead of the consumer, also for text held in memory", async () => {
    const lines = goldenText.trimEnd().split("\n");
    const body = Array.from({ length: 2000 }, () =>
      lines.slice(1).filter((line) => !line.includes('"span_')),
    );
    const text = `${[lines[0], ...body.flat(), "not json"].join("\n")}\n`;
    for (const source of [{ text }, new TextEncoder().encode(text)]) {
      const diagnostics: number[] = [];
      const options = {
        mode: "lenient" as const,
        onDiagnostic: (error: TraceParseError) => diagnostics.push(error.line ?? 0),
      };
      for await (const record of readTraceEvents(source, options)) {
        expect(record.index).toBe(0);
        break;
      }
      // The defect on the last line was never reached: the reader did not decode the whole input.
      expect(diagnostics).toEqual([]);
      let count = 0;
      for await (const _ of readTraceEvents(source, options)) count++;
      expect(count).toBe(1 + body.flat().length);
      expect(diagnostics).toEqual([body.flat().length + 2]);
    }
  });

  it("gives every event its own strings across steps that share the batch's dictionary", async () => {
    // Thousands of steps' worth of ops: names repeat from step to step, tensor ids are new in each
    // (the dictionary passes its cap and restarts several times along the way).
    const lines = goldenText.trimEnd().split("\n");
    const op = JSON.parse(lines.find((line) => line.includes('"kind":"op"')) as string);
    const body = Array.from({ length: 20_000 }, (_, at) =>
      JSON.stringify({
        ...op,
        op_name: `op${at % 7}`,
        inputs: [`t${at}`, `t${at + 1}`],
        output: `t${at + 2}`,
      }),
    );
    // Inside the golden trace's spans (their starts first, their ends last), as a writer orders them.
    const starts = lines.filter((line) => line.includes('"kind":"span_start"'));
    const ends = lines.filter((line) => line.includes('"kind":"span_end"'));
    const all = [lines[0], ...starts, ...body, ...ends] as string[];
    // Bytes, as a file is read: the column reader decodes them (a string is read by the text tiers).
    const bytes = new TextEncoder().encode(`${all.join("\n")}\n`);
    // The golden lines carry every key, so each event is the line as JSON.parse reads it.
    const expected = all.map((line) => JSON.parse(line));
    const events = [];
    for await (const { event } of readTraceEvents(bytes)) events.push(event);
    expect(events).toEqual(expected);
    const batched = [];
    for await (const batch of readTraceBatches(bytes, { batchSize: 300 }))
      for (const { event } of batch) batched.push(event);
    expect(batched).toEqual(expected);
    expect(events[starts.length + 20_000]).toMatchObject({ op_name: `op${19_999 % 7}`, output: "t20001" });
  });

  it("stops reading when the consumer stops", async () => {
    for await (const record of readTraceEvents(join(fixturesDir, "valid/golden-train.jsonl"))) {
      expect(record.index).toBe(0);
      break;
    }
  });

  it("closes the source when the consumer stops", async () => {
    let closed = false;
    async function* chunks() {
      try {
        for (let repeat = 0; repeat < 100; repeat++)
          yield repeat === 0 ? golden : goldenText.slice(meta.length);
      } finally {
        closed = true;
      }
    }
    for await (const record of readTraceEvents(chunks())) {
      if (record.index === 3) break;
    }
    expect(closed).toBe(true);
  });

  it("closes like a native async generator through Symbol.asyncDispose, where it exists", async () => {
    const asyncDispose = (Symbol as { asyncDispose?: symbol }).asyncDispose;
    if (asyncDispose === undefined) return;
    const iterator = readTraceEvents(join(fixturesDir, "valid/golden-train.jsonl"));
    expect((await iterator.next()).done).toBe(false);
    await (iterator as unknown as Record<symbol, () => Promise<void>>)[asyncDispose]?.();
    expect((await iterator.next()).done).toBe(true);
  });

  it("answers next() calls made without waiting in order", async () => {
    const iterator = readTraceEvents(join(fixturesDir, "valid/golden-train.jsonl"));
    const results = await Promise.all([iterator.next(), iterator.next(), iterator.next()]);
    expect(results.map((result) => !result.done && result.value.index)).toEqual([0, 1, 2]);
    await iterator.return(undefined);
  });

  it("delivers the events before a defect, then throws it", async () => {
    const lines = goldenText.trimEnd().split("\n");
    const text = `${lines.slice(0, 5).join("\n")}\n{"kind":"op"}\n${lines.slice(5).join("\n")}\n`;
    const seen: number[] = [];
    const error = await (async () => {
      for await (const record of readTraceEvents({ text })) seen.push(record.index);
    })().catch((caught: unknown) => caught);
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    expect(TraceParseError.isInstance(error) && error.line).toBe(6);
  });

  it("reports a missing file as read_failed", async () => {
    const error = await parseTrace(join(fixturesDir, "no-such-file.jsonl")).catch(
      (caught: unknown) => caught,
    );
    expect(TraceParseError.isInstance(error) && error.code).toBe("read_failed");
  });
});

describe("line framing and UTF-8 (spec §4)", () => {
  it("rejects a BOM at line 1", () => {
    const error = failure(() => parseTraceText(new Uint8Array([0xef, 0xbb, 0xbf, ...golden])));
    expect(error).toMatchObject({ line: 1, code: "invalid_json", stage: "line" });
    expect(error.message).toContain("parse trace JSONL line 1 from <bytes>");
  });

  it("locates invalid UTF-8 on its physical line, also across chunk boundaries", async () => {
    const lines = goldenText.split("\n");
    const bad = Buffer.concat([
      Buffer.from(`${lines.slice(0, 3).join("\n")}\n\n`),
      Buffer.from([0x7b, 0xff, 0x7d, 0x0a]),
      Buffer.from(lines.slice(3).join("\n")),
    ]);
    const error = failure(() => parseTraceText(bad));
    expect(error).toMatchObject({ line: 5, code: "invalid_utf8" });
    expect(error.message).toContain("read trace JSONL line 5 from <bytes>: invalid UTF-8");
    const chunked = await parseTrace(Readable.from(Array.from(bad, (byte) => Uint8Array.of(byte)))).catch(
      (caught: unknown) => caught,
    );
    expect(chunked).toMatchObject({ line: 5, code: "invalid_utf8" });
  });

  it("treats lone surrogates in text sources as invalid UTF-8", () => {
    expect(failure(() => parseTraceText(`${meta}\n{"kind":"x\ud800"}\n`))).toMatchObject({
      line: 3,
      code: "invalid_utf8",
    });
  });

  it("keeps a lone CR inside a line and trims U+0085 but not U+FEFF", () => {
    const text = meta.replace('"schema"', '\r"schema"').replace("\n", "\u0085\r\n");
    expect(parseTraceText(text).run.entrypoint).toBe("demo::train::update");
    expect(failure(() => parseTraceText(`\ufeff${meta}`)).code).toBe("invalid_json");
  });

  it("fails a line over the limit without buffering it", async () => {
    const long = `${meta}{"kind":"gradient","event_id":"${"x".repeat(5000)}"}\n`;
    const error = failure(() => parseTraceText(long, { maxLineLength: 1000 }));
    expect(error).toMatchObject({ line: 2, code: "line_too_long" });
    const chunks = Array.from({ length: 100 }, () => "y".repeat(100));
    const streamed = await parseTrace(Readable.from([meta, ...chunks, "\n"]), { maxLineLength: 1000 }).catch(
      (caught: unknown) => caught,
    );
    expect(streamed).toMatchObject({ line: 2, code: "line_too_long" });
  });

  it("names the field and line of a schema failure", () => {
    const error = failure(() =>
      parseTraceText(
        `${meta}{"kind":"span_start","id":"s1","name":"n","start_ns":-1,"span_kind":"function"}\n`,
        {
          file: "run.jsonl",
        },
      ),
    );
    expect(error).toMatchObject({ line: 2, index: 1, code: "expected_u64", file: "run.jsonl" });
    expect(error.field).toContain("start_ns");
    expect(error.message).toMatch(/^parse trace JSONL line 2 from run\.jsonl: .*expected u64/);
  });
});

describe("lenient mode (spec §8.5)", () => {
  it("is not the default: a truncated last line fails strict parsing", () => {
    const cut = goldenText.slice(0, goldenText.length - 20);
    expect(failure(() => parseTraceText(cut))).toMatchObject({ code: "invalid_json", line: 18 });
  });

  it("drops a truncated final line and reports it as truncated", () => {
    const cut = goldenText.slice(0, goldenText.length - 20);
    const diagnostics: TraceParseError[] = [];
    const document = parseTraceText(cut, {
      mode: "lenient",
      onDiagnostic: (error) => diagnostics.push(error),
    });
    expect(document.diagnostics?.map((error) => [error.code, error.line])).toEqual([["truncated", 18]]);
    expect(diagnostics).toEqual(document.diagnostics);
    expect(document.spans.find((span) => span.id === "s1")?.closed).toBe(false);
  });

  it("skips bad lines and out-of-order events, collecting diagnostics", () => {
    const lines = goldenText.trimEnd().split("\n");
    lines.splice(3, 0, "not json", '{"kind":"span_end","id":"nope"}', lines[1] as string);
    const document = parseTraceText(lines.join("\n"), { mode: "lenient" });
    expect(document.diagnostics?.map((error) => error.code)).toEqual([
      "invalid_json",
      "unknown_span_end",
      "duplicate_span_start",
    ]);
    expect(document.spans).toHaveLength(5);
  });
});

describe("prototype safety", () => {
  it("keeps __proto__ and constructor tags as data", () => {
    const text = meta.replace(
      '"tags":{"physical_batch":"128","precision":"f32"}',
      '"tags":{"__proto__":"x","constructor":"y","toString":"z"}',
    );
    const document = parseTraceText(text);
    expect(Object.keys(document.run.tags).sort()).toEqual(["__proto__", "constructor", "toString"]);
    expect(Object.hasOwn(document.run.tags, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(Object.prototype.toString.call({})).toBe("[object Object]");
  });
});
