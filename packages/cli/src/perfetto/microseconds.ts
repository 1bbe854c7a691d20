import { formatU64, type U64 } from "@cg/schema/core";

/**
 * Nanoseconds as a decimal microsecond literal, exactly: 5000 → `5`, 1234 → `1.234`, 1 → `0.001`.
 * Works on the digits, so values beyond 2^53 keep every sub-microsecond digit.
 */
export function microsecondsText(nanoseconds: U64): string {
  const digits = formatU64(nanoseconds).padStart(4, "0");
  const whole = digits.slice(0, -3).replace(/^0+(?=\d)/, "");
  const fraction = digits.slice(-3).replace(/0+$/, "");
  return fraction === "" ? whole : `${whole}.${fraction}`;
}
