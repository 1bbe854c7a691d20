import { MEMORY_CATEGORIES, type MemoryAction } from "@cg/schema";
import type { MemoryRecord } from "../record-inputs.js";
import { integerDigits } from "./integer-digits.js";
import { enumText, invalidField, jsonString, shapeText, u64Text } from "./json-parts.js";

/** One `memory` line (spec §2.7), canonical key order; `bytes` written as given. */
export function memoryLine(
  spanIdJson: string,
  record: MemoryRecord,
  action: MemoryAction,
  nowNs: () => number,
): string {
  if (typeof record !== "object" || record === null) throw invalidField("memory record", "an object", record);
  const timestamp =
    record.timestampNs === undefined ? integerDigits(nowNs()) : u64Text(record.timestampNs, "timestampNs");
  const tensorId = jsonString(record.tensorId, "tensorId");
  const opName = record.opName === undefined ? "" : ',"op_name":' + jsonString(record.opName, "opName");
  const device = jsonString(record.device, "device");
  const bytes = u64Text(record.bytes, "bytes");
  const shape = shapeText(record.shape, "shape");
  const dtype = jsonString(record.dtype, "dtype");
  const category =
    record.category === undefined ? '"other"' : enumText(record.category, MEMORY_CATEGORIES, "category");
  return (
    '{"kind":"memory","timestamp_ns":' +
    timestamp +
    ',"tensor_id":' +
    tensorId +
    ',"span_id":' +
    spanIdJson +
    opName +
    ',"device":' +
    device +
    ',"bytes":' +
    bytes +
    (action === "alloc" ? ',"action":"alloc","shape":' : ',"action":"free","shape":') +
    shape +
    ',"dtype":' +
    dtype +
    ',"category":' +
    category +
    "}\n"
  );
}
