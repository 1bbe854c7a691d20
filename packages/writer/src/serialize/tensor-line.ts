import { resolveStorageBytes } from "@cg/memory";
import { MEMORY_CATEGORIES } from "@cg/schema";
import type { TensorRecord } from "../record-inputs.js";
import { booleanText, enumText, invalidField, jsonString, shapeText, u64Text } from "./json-parts.js";
import { resolvedText } from "./op-line.js";

/** One `tensor` line (spec §2.6), canonical key order, `storage_bytes` resolved and always written. */
export function tensorLine(spanIdJson: string, record: TensorRecord): string {
  if (typeof record !== "object" || record === null) throw invalidField("tensor record", "an object", record);
  const tensorId = jsonString(record.tensorId, "tensorId");
  const shape = shapeText(record.shape, "shape");
  const dtype = jsonString(record.dtype, "dtype");
  const device = jsonString(record.device, "device");
  const requiresGrad =
    record.requiresGrad === undefined ? "false" : booleanText(record.requiresGrad, "requiresGrad");
  const storage =
    record.storageBytes === undefined
      ? resolvedText(resolveStorageBytes(undefined, record.shape ?? [], record.dtype))
      : u64Text(record.storageBytes, "storageBytes");
  const category =
    record.category === undefined ? '"other"' : enumText(record.category, MEMORY_CATEGORIES, "category");
  return (
    '{"kind":"tensor","span_id":' +
    spanIdJson +
    ',"tensor_id":' +
    tensorId +
    ',"shape":' +
    shape +
    ',"dtype":' +
    dtype +
    ',"device":' +
    device +
    ',"requires_grad":' +
    requiresGrad +
    ',"storage_bytes":' +
    storage +
    ',"category":' +
    category +
    "}\n"
  );
}
