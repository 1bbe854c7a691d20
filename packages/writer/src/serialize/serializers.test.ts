// The writer's hot-path serializers must produce exactly the schema's canonical encoders' bytes.
import { resolveStorageBytes } from "@cg/memory";
import {
  EXECUTION_STEPS,
  encodeDeviceMemoryEvent,
  encodeJsonString,
  encodeMemoryEvent,
  encodeOpEvent,
  encodeSpanEndEvent,
  encodeSpanStartEvent,
  encodeTensorEvent,
  MEMORY_CATEGORIES,
  SPAN_KINDS,
  type U64,
  U64_MAX,
} from "@cg/schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deviceMemoryLine, memoryLine, opLine, tensorLine } from "./record-lines.js";
import { NO_PIECES, SPAN_END, SPAN_START } from "./span-line-writers.js";
import { spanPieces } from "./span-pieces.js";

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.constantFrom("f32", "BF16", " i64 ", "f8e4m3", ""),
);
const u64 = fc.oneof(
  fc.nat(),
  fc.maxSafeNat(),
  fc.bigInt({ min: 0n, max: U64_MAX }),
  fc.constantFrom<U64>(0, Number.MAX_SAFE_INTEGER, U64_MAX, 9007199254740993n),
);
const shape = fc.array(fc.oneof(fc.nat({ max: 4096 }), u64), { maxLength: 4 });
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
const now = () => 31337;

describe("hot-path serializers equal the schema encoders", () => {
  it("op", () => {
    fc.assert(
      fc.property(
        text,
        fc.record({
          opName: text,
          inputs: maybe(fc.array(text, { maxLength: 3 })),
          output: maybe(text),
          shape: maybe(shape),
          dtype: text,
          device: text,
          durationNs: u64,
          timestampNs: maybe(u64),
          storageBytes: maybe(u64),
          inputStorageBytes: maybe(u64),
        }),
        (spanId, record) => {
          const line = opLine(encodeJsonString(spanId), record, now);
          const event = {
            kind: "op" as const,
            span_id: spanId,
            op_name: record.opName,
            inputs: record.inputs ?? [],
            shape: record.shape ?? [],
            dtype: record.dtype,
            device: record.device,
            duration_ns: record.durationNs,
            timestamp_ns: record.timestampNs ?? now(),
            storage_bytes: resolveStorageBytes(record.storageBytes, record.shape ?? [], record.dtype),
            input_storage_bytes: record.inputStorageBytes ?? 0,
            ...(record.output === undefined ? {} : { output: record.output }),
          };
          expect(line).toBe(encodeOpEvent(event) + "\n");
        },
      ),
    );
  });

  it("tensor", () => {
    fc.assert(
      fc.property(
        fc.record({
          tensorId: text,
          shape: maybe(shape),
          dtype: text,
          device: text,
          requiresGrad: maybe(fc.boolean()),
          storageBytes: maybe(u64),
          category: maybe(fc.constantFrom(...MEMORY_CATEGORIES)),
        }),
        (record) => {
          const event = {
            kind: "tensor" as const,
            span_id: "s9",
            tensor_id: record.tensorId,
            shape: record.shape ?? [],
            dtype: record.dtype,
            device: record.device,
            requires_grad: record.requiresGrad ?? false,
            storage_bytes: resolveStorageBytes(record.storageBytes, record.shape ?? [], record.dtype),
            category: record.category ?? "other",
          };
          expect(tensorLine('"s9"', record)).toBe(encodeTensorEvent(event) + "\n");
        },
      ),
    );
  });

  it("memory", () => {
    fc.assert(
      fc.property(
        fc.record({
          tensorId: text,
          device: text,
          bytes: u64,
          dtype: text,
          category: maybe(fc.constantFrom(...MEMORY_CATEGORIES)),
          timestampNs: maybe(u64),
          opName: maybe(text),
          shape: maybe(shape),
        }),
        fc.constantFrom("alloc" as const, "free" as const),
        (record, action) => {
          const event = {
            kind: "memory" as const,
            timestamp_ns: record.timestampNs ?? now(),
            tensor_id: record.tensorId,
            span_id: "s2",
            device: record.device,
            bytes: record.bytes,
            action,
            shape: record.shape ?? [],
            dtype: record.dtype,
            category: record.category ?? "other",
            ...(record.opName === undefined ? {} : { op_name: record.opName }),
          };
          expect(memoryLine('"s2"', record, action, now)).toBe(encodeMemoryEvent(event) + "\n");
        },
      ),
    );
  });

  it("device_memory", () => {
    fc.assert(
      fc.property(text, u64, u64, maybe(u64), maybe(u64), (device, used, free, timestamp, reserved) => {
        const event = {
          kind: "device_memory" as const,
          timestamp_ns: timestamp ?? now(),
          device,
          used_bytes: used,
          free_bytes: free,
          ...(reserved === undefined ? {} : { reserved_bytes: reserved }),
        };
        expect(deviceMemoryLine(device, used, free, timestamp, reserved, now)).toBe(
          encodeDeviceMemoryEvent(event) + "\n",
        );
      }),
    );
  });

  it("span_start and span_end", () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.oneof(fc.constant(0), fc.nat()),
        text,
        fc.maxSafeNat(),
        fc.constantFrom(...SPAN_KINDS),
        fc.boolean(),
        maybe(fc.constantFrom(...EXECUTION_STEPS)),
        (id, parent, name, start, kind, measured, step) => {
          // Parent 0: no parent (the root).
          const parentId = parent === 0 ? undefined : `s${parent}`;
          const pieces = spanPieces(SPAN_START.plan, { name, kind, measured, step });
          const line = SPAN_START.text(id, parent, start, pieces);
          const event = {
            kind: "span_start" as const,
            id: `s${id}`,
            name,
            start_ns: start,
            span_kind: kind,
            measured,
            ...(parentId === undefined ? {} : { parent_id: parentId }),
            ...(step === undefined ? {} : { step }),
          };
          expect(line).toBe(encodeSpanStartEvent(event) + "\n");
          expect(SPAN_END.text(id, 0, start, NO_PIECES)).toBe(
            encodeSpanEndEvent({ kind: "span_end", id: `s${id}`, duration_ns: start }) + "\n",
          );
        },
      ),
    );
  });
});
