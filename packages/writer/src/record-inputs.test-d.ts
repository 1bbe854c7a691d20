// The record inputs are derived from the wire layout table: these pins fail when a key is added to,
// removed from or retyped in the `op`, `tensor` or `memory` row without the records following, and
// the modified-table cases show the derivation itself follows a new key.
import type { EventLayouts, MemoryCategory, U64 } from "@cg/schema";
import { describe, expectTypeOf, it } from "vitest";
import type { MemoryRecord, OpRecord, TensorRecord } from "./core.js";
import type { RecordOfLayout } from "./record-of-layout.js";

/** An intersection as one object type, to compare it with a flattened record. */
type Spread<T> = { [K in keyof T]: T[K] };

describe("record inputs", () => {
  it("OpRecord is every op key but the span id, camelCased", () => {
    expectTypeOf<OpRecord>().toEqualTypeOf<{
      opName: string;
      inputs?: readonly string[] | undefined;
      output?: string | undefined;
      shape?: readonly U64[] | undefined;
      dtype: string;
      device: string;
      durationNs: U64;
      timestampNs?: U64 | undefined;
      storageBytes?: U64 | undefined;
      inputStorageBytes?: U64 | undefined;
    }>();
  });

  it("TensorRecord is every tensor key but the span id, camelCased", () => {
    expectTypeOf<TensorRecord>().toEqualTypeOf<{
      tensorId: string;
      shape?: readonly U64[] | undefined;
      dtype: string;
      device: string;
      requiresGrad?: boolean | undefined;
      storageBytes?: U64 | undefined;
      category?: MemoryCategory | undefined;
    }>();
  });

  it("MemoryRecord is every memory key but the span id and action; its timestamp may be left out", () => {
    expectTypeOf<MemoryRecord>().toEqualTypeOf<{
      timestampNs?: U64 | undefined;
      tensorId: string;
      opName?: string | undefined;
      device: string;
      bytes: U64;
      shape?: readonly U64[] | undefined;
      dtype: string;
      category?: MemoryCategory | undefined;
    }>();
  });

  it("a key added to a row becomes a key of the record, with its presence", () => {
    type OpRow = EventLayouts["op"];
    type Added = {
      readonly kind: "op";
      readonly fields: readonly [
        ...OpRow["fields"],
        {
          readonly key: "queue_depth";
          readonly type: "u64";
          readonly presence: "required";
          readonly null: "rejected";
        },
        {
          readonly key: "stream_name";
          readonly type: "string";
          readonly presence: "optional";
          readonly null: "absent";
        },
      ];
    };
    type Record = RecordOfLayout<Added, "span_id">;
    expectTypeOf<Record>().toEqualTypeOf<
      Spread<OpRecord & { queueDepth: U64; streamName?: string | undefined }>
    >();
    // @ts-expect-error the new required key may not be left out
    const missing: Record = { opName: "mm", dtype: "f32", device: "cpu", durationNs: 1 };
    expectTypeOf(missing).toEqualTypeOf<Record>();
  });

  it("rejects a key the table does not have, and the keys the writer supplies", () => {
    // @ts-expect-error not a key of the op row
    const unknownKey: OpRecord = { opName: "mm", dtype: "f32", device: "cpu", durationNs: 1, spanId: "s" };
    // @ts-expect-error the writer writes the action itself
    const action: MemoryRecord = { tensorId: "t", device: "cpu", bytes: 4, dtype: "f32", action: "alloc" };
    expectTypeOf(unknownKey).toEqualTypeOf<OpRecord>();
    expectTypeOf(action).toEqualTypeOf<MemoryRecord>();
  });
});
