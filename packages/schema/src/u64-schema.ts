import { z } from "zod";
import { U64_MAX, type U64 as U64Value } from "./u64.js";

/** The zod schema of a wire u64 value (u64.ts): a safe non-negative integer, or a bigint in range. */
export const U64 = z.union([
  z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  z.bigint().min(0n).max(U64_MAX),
]);
export type U64 = U64Value;
