import { resolveStorageBytes } from "@cg/memory";
import type { U64 } from "@cg/schema";
import type { OpRecord } from "../record-inputs.js";
import { integerDigits } from "./integer-digits.js";
import { invalidField, jsonString, shapeText, stringArrayText, u64Text } from "./json-parts.js";

/**
 * One `op` line (spec §2.5) in canonical key order, LF-terminated. Validates every field first;
 * `storage_bytes` is resolved (spec §15.4) and always written.
 */
export function opLine(spanIdJson: string, record: OpRecord, nowNs: () => number): string {
  if (typeof record !== "object" || record === null) throw invalidField("op record", "an object", record);
  const opName = jsonString(record.opName, "opName");
  const inputs = stringArrayText(record.inputs, "inputs");
  const output = record.output === undefined ? "" : ',"output":' + jsonString(record.output, "output");
  const shape = shapeText(record.shape, "shape");
  const dtype = jsonString(record.dtype, "dtype");
  const device = jsonString(record.device, "device");
  const duration = u64Text(record.durationNs, "durationNs");
  const timestamp =
    record.timestampNs === undefined ? integerDigits(nowNs()) : u64Text(record.timestampNs, "timestampNs");
  const explicit = record.storageBytes;
  const storage =
    explicit === undefined
      ? resolvedText(resolveStorageBytes(undefined, record.shape ?? [], record.dtype))
      : u64Text(explicit, "storageBytes");
  const inputStorage =
    record.inputStorageBytes === undefined ? "0" : u64Text(record.inputStorageBytes, "inputStorageBytes");
  return (
    '{"kind":"op","span_id":' +
    spanIdJson +
    ',"op_name":' +
    opName +
    ',"inputs":' +
    inputs +
    output +
    ',"shape":' +
    shape +
    ',"dtype":' +
    dtype +
    ',"device":' +
    device +
    ',"duration_ns":' +
    duration +
    ',"timestamp_ns":' +
    timestamp +
    ',"storage_bytes":' +
    storage +
    ',"input_storage_bytes":' +
    inputStorage +
    "}\n"
  );
}

export function resolvedText(value: U64): string {
  return typeof value === "number" ? integerDigits(value) : value.toString();
}
