import { expect } from "vitest";

// Checks the rules of the Perfetto export on a parsed output document; shared by unit and
// end-to-end tests.

export interface ChromeEvent {
  name: string;
  ph: string;
  ts?: number;
  dur?: number;
  pid: number;
  tid?: number;
  cat?: string;
  /** Scope of an instant (`i`). */
  s?: string;
  args?: Record<string, unknown>;
}

export interface ChromeTrace {
  displayTimeUnit: string;
  otherData: Record<string, unknown>;
  traceEvents: ChromeEvent[];
}

const nanoseconds = (microseconds: number): number => Math.round(microseconds * 1000);

/** Asserts nesting per track, counter shape, metadata and units; returns the slices by track. */
export function checkPerfettoRules(trace: ChromeTrace): Map<string, ChromeEvent[]> {
  expect(trace.displayTimeUnit).toBe("ns");
  for (const value of Object.values(trace.otherData)) expect(typeof value).toBe("string");
  const named = new Set<string>();
  let processNamed = false;
  const tracks = new Map<string, ChromeEvent[]>();
  let previous: ChromeEvent | undefined;
  for (const event of trace.traceEvents) {
    const slice = previous;
    previous = event;
    if (slice?.ph === "X") expect(event.ph, `the ids of ${slice.name} follow it`).toBe("i");
    expect(typeof event.name).toBe("string");
    expect(event.pid).toBe(1);
    if (event.ph === "M") {
      if (event.name === "process_name") processNamed = true;
      if (event.name === "thread_name") named.add(`${event.pid}/${event.tid}`);
      expect(event.args).toBeTypeOf("object");
      continue;
    }
    expect(typeof event.ts).toBe("number");
    expect(event.ts).toBeGreaterThanOrEqual(0);
    if (event.ph === "C") {
      const values = Object.values(event.args ?? {});
      expect(values).toHaveLength(1);
      expect(typeof values[0]).toBe("number");
      continue;
    }
    if (event.ph === "i") {
      // The per-call ids of the slice just before it: same track, same start, same category,
      // thread-scoped so Perfetto nests it under that slice.
      expect(event).toMatchObject({ name: "ids", s: "t" });
      expect(slice).toMatchObject({ ph: "X", ts: event.ts, tid: event.tid, cat: event.cat });
      expect(Object.keys(event.args ?? {}).length).toBeGreaterThan(0);
      continue;
    }
    expect(event.ph).toBe("X");
    expect(typeof event.dur).toBe("number");
    expect(event.dur).toBeGreaterThanOrEqual(0);
    const key = `${event.pid}/${event.tid}`;
    const list = tracks.get(key) ?? [];
    list.push(event);
    tracks.set(key, list);
  }
  expect(previous?.ph, "the last slice has its ids").not.toBe("X");
  expect(processNamed).toBe(true);
  for (const [key, slices] of tracks) {
    expect(named.has(key), `track ${key} has a thread_name`).toBe(true);
    const ordered = [...slices].sort((a, b) => nanoseconds(a.ts!) - nanoseconds(b.ts!) || b.dur! - a.dur!);
    const stack: { start: number; end: number; name: string }[] = [];
    for (const slice of ordered) {
      const start = nanoseconds(slice.ts!);
      const end = start + nanoseconds(slice.dur!);
      while (stack.length > 0 && stack[stack.length - 1]!.end <= start) stack.pop();
      const parent = stack[stack.length - 1];
      if (parent !== undefined) {
        expect(end, `${slice.name} [${start},${end}] nests in ${parent.name} on ${key}`).toBeLessThanOrEqual(
          parent.end,
        );
      }
      stack.push({ start, end, name: slice.name });
    }
  }
  return tracks;
}
