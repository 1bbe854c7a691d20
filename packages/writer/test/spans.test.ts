import { setTimeout as sleep } from "node:timers/promises";
import { ProfileRun, TraceSession, TraceSessionCore, TraceSessionError, WriterInputError } from "@cg/writer";
import { describe, expect, it } from "vitest";
import { checkTrace, eventsOfKind, scriptedClock } from "./support.js";

const run = ProfileRun.training("train::update", 1, "cpu");

function parents(text: string): Record<string, string | undefined> {
  const result: Record<string, string | undefined> = {};
  for (const start of eventsOfKind(checkTrace(text).events, "span_start"))
    result[start.name] = start.parent_id;
  return result;
}

describe("span guards", () => {
  it("ids count up from s2, are never reused, and parents follow the open spans", () => {
    const session = TraceSession.inMemory(run);
    const a = session.beginSpan("a");
    const b = session.beginSpan("b", "module");
    b.end();
    const c = session.beginStepSpan("c", "forward", "op");
    c.end();
    a.end();
    const d = session.beginSpan("d");
    d.end();
    expect([a.id, b.id, c.id, d.id]).toEqual(["s2", "s3", "s4", "s5"]);
    session.finish();
    const { starts } = checkTrace(session.sink.text());
    expect(starts.get("s3")).toMatchObject({ parent_id: "s2", span_kind: "module", measured: false });
    expect(starts.get("s4")).toMatchObject({ parent_id: "s2", span_kind: "op", step: "forward" });
    expect(starts.get("s5")?.parent_id).toBe("s1");
  });

  it("begin/end timestamps come from the capture clock", () => {
    const session = TraceSession.inMemory(run, { clock: scriptedClock([10, 25, 40]) });
    const span = session.beginMeasurement("m");
    span.end();
    session.finish();
    const text = session.sink.text();
    expect(text).toContain(
      '{"kind":"span_start","id":"s2","parent_id":"s1","name":"m","start_ns":10,"span_kind":"function","measured":true}\n',
    );
    expect(text).toContain('{"kind":"span_end","id":"s2","duration_ns":15}\n');
    expect(text.endsWith('{"kind":"span_end","id":"s1","duration_ns":40}\n')).toBe(true);
  });

  it("the root span is not measured and ends last", () => {
    const session = TraceSession.inMemory(run);
    session.finish();
    const lines = session.sink.lines();
    expect(lines[1]).toBe(
      '{"kind":"span_start","id":"s1","name":"train::update","start_ns":0,"span_kind":"function","measured":false}',
    );
    expect(lines[2]).toMatch(/^\{"kind":"span_end","id":"s1","duration_ns":\d+\}$/);
  });

  it("out-of-order ends are all written (spec §17 Q2) and finish succeeds", () => {
    const session = TraceSession.inMemory(run);
    const outer = session.beginSpan("outer");
    const inner = session.beginSpan("inner");
    outer.end();
    const next = session.beginSpan("next");
    inner.end();
    next.end();
    session.finish();
    const { ends } = checkTrace(session.sink.text());
    expect([...ends.keys()]).toEqual(["s2", "s3", "s4", "s1"]);
    // After outer ended, the innermost open span (inner) is the parent of the next one.
    expect(parents(session.sink.text()).next).toBe("s3");
  });

  it("ending twice or ending another session's span is a typed error; using after end() is fine", () => {
    const session = TraceSession.inMemory(run);
    const other = TraceSession.inMemory(run);
    const span = session.beginSpan("a");
    span.end();
    expect(() => span.end()).toThrowError(expect.objectContaining({ code: "span_already_ended" }));
    {
      using guard = session.beginSpan("b");
      guard.end();
    }
    const foreign = other.beginSpan("x");
    const error = (() => {
      try {
        session.endSpan(foreign);
      } catch (caught) {
        return caught;
      }
    })();
    expect(TraceSessionError.isInstance(error)).toBe(true);
    expect((error as TraceSessionError).code).toBe("foreign_span");
    expect(() =>
      session.recordOp(foreign, { opName: "x", dtype: "f32", device: "cpu", durationNs: 1 }),
    ).toThrow(/does not belong/);
    foreign.end();
    session.finish();
    other.finish();
    expect(checkTrace(session.sink.text()).ends.size).toBe(3);
  });

  it("finish refuses while nested spans are open, then succeeds once they end", () => {
    const session = TraceSession.inMemory(run);
    const a = session.beginSpan("a");
    session.beginSpan("b").end();
    expect(() => session.finish()).toThrowError("cannot finish trace with 1 nested spans still open");
    expect(session.finished).toBe(false);
    a.end();
    expect(session.finish()).toBe("memory");
    expect(() => session.beginSpan("late")).toThrowError(
      expect.objectContaining({ code: "session_finished" }),
    );
    expect(() => session.finish()).toThrowError(/already finished/);
  });

  it("invalid names, kinds and steps are rejected before anything is written", () => {
    const session = TraceSession.inMemory(run);
    const before = session.sink.text();
    expect(() => session.beginSpan(42 as unknown as string)).toThrowError(WriterInputError);
    expect(() => session.beginSpan("a", "Function" as "function")).toThrowError(/kind must be one of/);
    expect(() => session.beginStepSpan("a", "fwd" as "forward")).toThrowError(/step must be one of/);
    expect(session.sink.text()).toBe(before);
    session.finish();
    expect(checkTrace(session.sink.text()).starts.size).toBe(1);
  });
});

describe("span(name, fn)", () => {
  it("runs a sync function inside the span and ends it on return and on throw", () => {
    const session = TraceSession.inMemory(run);
    const value = session.span("sync", (span) => {
      expect(session.currentSpanId()).toBe(span.id);
      session.beginSpan("child").end();
      return 7;
    });
    expect(value).toBe(7);
    expect(() =>
      session.span("throws", () => {
        throw new Error("boom");
      }),
    ).toThrowError("boom");
    expect(session.openSpanCount).toBe(0);
    session.finish();
    expect(parents(session.sink.text())).toMatchObject({ sync: "s1", child: "s2", throws: "s1" });
  });

  it("carries the parent through await, and concurrent work gets correct parents", async () => {
    const session = TraceSession.inMemory(run);
    await session.span("step", async () => {
      await Promise.all(
        ["a", "b", "c"].map((name, index) =>
          session.span(name, async () => {
            await sleep(5 * (3 - index));
            await session.span(`${name}.inner`, async () => {
              await sleep(1);
              using guard = session.beginSpan(`${name}.guard`);
              await sleep(1);
              session.recordOp(session.currentSpanId(), {
                opName: name,
                dtype: "f32",
                device: "cpu",
                durationNs: 1,
              });
              guard.end();
            });
          }),
        ),
      );
    });
    session.finish();
    const text = session.sink.text();
    const tree = parents(text);
    const { starts } = checkTrace(text);
    const idOf = (name: string) => [...starts.values()].find((start) => start.name === name)?.id;
    for (const name of ["a", "b", "c"]) {
      expect(tree[name]).toBe(idOf("step"));
      expect(tree[`${name}.inner`]).toBe(idOf(name));
      expect(tree[`${name}.guard`]).toBe(idOf(`${name}.inner`));
      const op = eventsOfKind(checkTrace(text).events, "op").find((event) => event.op_name === name);
      expect(op?.span_id).toBe(idOf(`${name}.guard`));
    }
  });

  it("ends an async span when its promise rejects", async () => {
    const session = TraceSession.inMemory(run);
    await expect(
      session.span("rejects", async () => {
        await sleep(1);
        throw new Error("nope");
      }),
    ).rejects.toThrowError("nope");
    expect(session.openSpanCount).toBe(0);
    session.finish();
    expect(checkTrace(session.sink.text()).ends.has("s2")).toBe(true);
  });

  it("the browser-safe core keeps the synchronous part without AsyncLocalStorage", () => {
    const session = TraceSessionCore.inMemory(run);
    session.span("outer", () => session.span("inner", () => undefined), { measured: true });
    session.finish();
    const { starts } = checkTrace(session.sink.text());
    expect(starts.get("s2")?.measured).toBe(true);
    expect(starts.get("s3")?.parent_id).toBe("s2");
  });

  it("sessions open at the same time do not share spans or counters", async () => {
    const first = TraceSession.inMemory(run);
    const second = TraceSession.inMemory(run);
    await Promise.all([
      first.span("f", async () => {
        await sleep(2);
        first.recordGradient("vb", "w", "present", 1);
        first.beginSpan("f.child").end();
      }),
      second.span("g", async () => {
        second.beginSpan("g.child").end();
        await sleep(1);
        second.recordGradient("vb", "w", "zero", 0);
      }),
    ]);
    first.finish();
    second.finish();
    expect(parents(first.sink.text())).toEqual({ "train::update": undefined, f: "s1", "f.child": "s2" });
    expect(parents(second.sink.text())).toEqual({ "train::update": undefined, g: "s1", "g.child": "s2" });
    expect(second.sink.text()).toContain(
      '"event_id":"gradient-1","root":"vb","key":"w","state":"zero","norm":0.0}',
    );
  });
});
