import { integerDigits } from "./integer-digits.js";
import { jsonString, u64Text } from "./json-parts.js";

/** One `device_memory` line (spec §2.8); `reserved_bytes` only when given. */
export function deviceMemoryLine(
  device: unknown,
  usedBytes: unknown,
  freeBytes: unknown,
  timestampNs: unknown,
  reservedBytes: unknown,
  nowNs: () => number,
): string {
  const deviceJson = jsonString(device, "device");
  const used = u64Text(usedBytes, "usedBytes");
  const free = u64Text(freeBytes, "freeBytes");
  const reserved =
    reservedBytes === undefined ? "" : ',"reserved_bytes":' + u64Text(reservedBytes, "reservedBytes");
  const timestamp = timestampNs === undefined ? integerDigits(nowNs()) : u64Text(timestampNs, "timestampNs");
  return (
    '{"kind":"device_memory","timestamp_ns":' +
    timestamp +
    ',"device":' +
    deviceJson +
    ',"used_bytes":' +
    used +
    ',"free_bytes":' +
    free +
    reserved +
    "}\n"
  );
}
