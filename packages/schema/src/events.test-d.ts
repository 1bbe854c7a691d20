// Pins the public shapes of the wire contract; a change here is a breaking change.
import { describe, expectTypeOf, it } from "vitest";
import {
  type DecodeTraceLineOptions,
  decodeTraceLine,
  type EventOfKind,
  type GradientEvent,
  type MetaEvent,
  type OpEvent,
  type RunMetadata,
  type SpanStartEvent,
  type TensorEvent,
  type TraceEvent,
  trimTraceLine,
  type U64,
} from "./index.js";
import type { DecodeLineResult, LineDecodeError, LineErrorCode } from "./line-decode-error.js";

describe("wire types", () => {
  it("represents u64 as number | bigint", () => {
    expectTypeOf<U64>().toEqualTypeOf<number | bigint>();
    expectTypeOf<OpEvent["duration_ns"]>().toEqualTypeOf<U64>();
    expectTypeOf<OpEvent["shape"]>().toEqualTypeOf<U64[]>();
  });

  it("keeps optional keys without defaults optional", () => {
    expectTypeOf<OpEvent["storage_bytes"]>().toEqualTypeOf<U64 | undefined>();
    expectTypeOf<TensorEvent["storage_bytes"]>().toEqualTypeOf<U64 | undefined>();
    expectTypeOf<OpEvent["output"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<SpanStartEvent["parent_id"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<GradientEvent["norm"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<MetaEvent["candle_version"]>().toEqualTypeOf<string | undefined>();
  });

  it("resolves defaults to required outputs", () => {
    expectTypeOf<OpEvent["inputs"]>().toEqualTypeOf<string[]>();
    expectTypeOf<SpanStartEvent["measured"]>().toEqualTypeOf<boolean>();
    expectTypeOf<MetaEvent["measured_region_device_synchronized"]>().toEqualTypeOf<boolean>();
    expectTypeOf<MetaEvent["tags"]>().toEqualTypeOf<Record<string, string>>();
    expectTypeOf<TensorEvent["category"]>().toEqualTypeOf<
      "activation" | "gradient" | "optimizer" | "other" | "parameter"
    >();
  });

  it("narrows TraceEvent by kind", () => {
    expectTypeOf<TraceEvent["kind"]>().toEqualTypeOf<
      "meta" | "span_start" | "span_end" | "op" | "tensor" | "memory" | "device_memory" | "gradient" | "edge"
    >();
    expectTypeOf<EventOfKind<"op">>().toEqualTypeOf<OpEvent>();
    const event = {} as TraceEvent;
    if (event.kind === "span_start") expectTypeOf(event).toEqualTypeOf<SpanStartEvent>();
    if (event.kind === "gradient")
      expectTypeOf(event.state).toEqualTypeOf<"present" | "missing" | "zero" | "non_finite">();
    expectTypeOf<RunMetadata>().not.toHaveProperty("kind");
    expectTypeOf<RunMetadata>().toHaveProperty("entrypoint");
  });
});

describe("line decoder", () => {
  it("has a stable signature", () => {
    expectTypeOf(trimTraceLine).toEqualTypeOf<(line: string) => string>();
    expectTypeOf(decodeTraceLine).parameters.toEqualTypeOf<[string, DecodeTraceLineOptions?]>();
    expectTypeOf(decodeTraceLine).returns.toEqualTypeOf<DecodeLineResult>();
    expectTypeOf<LineErrorCode>().toEqualTypeOf<
      | "invalid_json"
      | "number_out_of_range"
      | "missing_field"
      | "duplicate_field"
      | "unknown_variant"
      | "expected_u64"
      | "expected_usize"
      | "invalid_type"
    >();
    expectTypeOf<LineDecodeError["field"]>().toEqualTypeOf<string | undefined>();
  });

  it("narrows the result on ok", () => {
    const result = decodeTraceLine("{}");
    if (result.ok) expectTypeOf(result.event).toEqualTypeOf<TraceEvent>();
    else expectTypeOf(result.error).toEqualTypeOf<LineDecodeError>();
  });
});
