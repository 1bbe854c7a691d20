// sortMemoryEvents keeps the caller's element type: it orders any record with the ordering fields.
import type { MemoryEvent } from "@cg/schema";
import { describe, expectTypeOf, it } from "vitest";
import { sortMemoryEvents } from "./index.js";

type Ordered = Pick<MemoryEvent, "timestamp_ns" | "action" | "tensor_id">;

describe("sortMemoryEvents", () => {
  it("returns the element type it was given", () => {
    const events: MemoryEvent[] = [];
    expectTypeOf(sortMemoryEvents(events)).toEqualTypeOf<readonly MemoryEvent[]>();
    const tagged: (Ordered & { line: number })[] = [];
    expectTypeOf(sortMemoryEvents(tagged)).toEqualTypeOf<readonly (Ordered & { line: number })[]>();
  });

  it("refuses records without the ordering fields", () => {
    // @ts-expect-error no tensor_id
    sortMemoryEvents([{ timestamp_ns: 1, action: "alloc" as const }]);
  });
});
