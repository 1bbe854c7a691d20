// queryTrace's result type follows the kind asked for: each kind has its own result shape.
import { describe, expectTypeOf, it } from "vitest";
import {
  type HeaviestResult,
  type MemoryResult,
  type QueryKind,
  type QueryResult,
  queryTrace,
  type SlowestResult,
  type TraceDocument,
} from "./index.js";

declare const document: TraceDocument;

describe("queryTrace", () => {
  it("returns the result of the kind asked for", () => {
    expectTypeOf(queryTrace(document, "slowest")).toEqualTypeOf<SlowestResult>();
    expectTypeOf(queryTrace(document, "memory")).toEqualTypeOf<MemoryResult>();
    expectTypeOf(queryTrace(document, "heaviest", { limit: 3 }).kind).toEqualTypeOf<"heaviest">();
  });

  it("returns the union for a kind known only at run time", () => {
    const kind = "slowest" as "slowest" | "heaviest";
    expectTypeOf(queryTrace(document, kind)).toEqualTypeOf<SlowestResult | HeaviestResult>();
    expectTypeOf(queryTrace(document, "tensors" as QueryKind)).toEqualTypeOf<QueryResult>();
  });

  it("refuses a kind that does not exist", () => {
    // @ts-expect-error not a query kind
    queryTrace(document, "fastest");
  });
});
