// Test helpers: decode a written trace with the schema's strict line decoder and check the
// reference ordering rules (spec §4.4, §8.3) without depending on the parser package.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeTraceLine, type TraceEvent } from "@cg/schema";
import { afterAll, beforeAll } from "vitest";

export interface CheckedTrace {
  events: TraceEvent[];
  /** span id → its span_start event */
  starts: Map<string, Extract<TraceEvent, { kind: "span_start" }>>;
  /** span id → duration */
  ends: Map<string, number | bigint>;
}

/** Decodes every line (each must end with LF) and enforces: meta first and once, unique span starts, ends after starts, ends once. */
export function checkTrace(text: string): CheckedTrace {
  if (text.length > 0 && !text.endsWith("\n")) throw new Error("trace does not end with LF");
  const lines = text.length === 0 ? [] : text.slice(0, -1).split("\n");
  const events: TraceEvent[] = [];
  const starts = new Map<string, Extract<TraceEvent, { kind: "span_start" }>>();
  const ends = new Map<string, number | bigint>();
  lines.forEach((line, index) => {
    if (line.length === 0 || line.trim() !== line) throw new Error(`line ${index + 1} is blank or padded`);
    const result = decodeTraceLine(line);
    if (!result.ok) throw new Error(`line ${index + 1} does not decode: ${result.error.message}\n${line}`);
    const event = result.event;
    if ((event.kind === "meta") !== (index === 0))
      throw new Error(`meta must be exactly line 1 (line ${index + 1})`);
    if (event.kind === "span_start") {
      if (starts.has(event.id)) throw new Error(`duplicate span_start ${event.id}`);
      starts.set(event.id, event);
    } else if (event.kind === "span_end") {
      if (!starts.has(event.id)) throw new Error(`span_end before span_start for ${event.id}`);
      if (ends.has(event.id)) throw new Error(`duplicate span_end ${event.id}`);
      ends.set(event.id, event.duration_ns);
    }
    events.push(event);
  });
  return { events, starts, ends };
}

/** A clock that returns scripted readings, then keeps returning the last one. */
export function scriptedClock(readings: number[]): { now(): number } {
  let index = 0;
  let last = 0;
  return {
    now() {
      if (index < readings.length) last = readings[index++] as number;
      return last;
    },
  };
}

export function eventsOfKind<K extends TraceEvent["kind"]>(
  events: readonly TraceEvent[],
  kind: K,
): Extract<TraceEvent, { kind: K }>[] {
  return events.filter((event): event is Extract<TraceEvent, { kind: K }> => event.kind === kind);
}

/**
 * A temporary folder for the calling test file, made before its first test and removed after its
 * last. The returned function gives a path inside it (the folder itself with no arguments).
 */
export function tempDirForFile(prefix: string): (...parts: string[]) => string {
  let dir = "";
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return (...parts) => {
    if (!dir) throw new Error("the temporary folder is made in beforeAll: call this inside a test");
    return join(dir, ...parts);
  };
}
