/**
 * Canonical float text of spec §6.2 (the reference's layout of the shortest round-trip digits):
 * integral values keep `.0`, |v| < 1e-5 and |v| ≥ 1e16 use exponent form with `e+`/`e-`, and
 * non-finite values become `null`.
 */
export function formatCanonicalFloat(value: number): string {
  if (!Number.isFinite(value)) return "null";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const sign = value < 0 ? "-" : "";
  // toExponential() without an argument yields the shortest digits that read back to the same f64.
  const exponential = Math.abs(value).toExponential();
  const eIndex = exponential.indexOf("e");
  const digits = exponential.slice(0, eIndex).replace(".", "");
  const k = Number(exponential.slice(eIndex + 1)) + 1; // 10^(k−1) ≤ |v| < 10^k
  const n = digits.length;
  if (k > 0 && k <= 16) {
    if (n <= k) return `${sign}${digits}${"0".repeat(k - n)}.0`;
    return `${sign}${digits.slice(0, k)}.${digits.slice(k)}`;
  }
  if (k > -5 && k <= 0) return `${sign}0.${"0".repeat(-k)}${digits}`;
  const exponent = k - 1;
  const mantissa = n > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${mantissa}e${exponent >= 0 ? "+" : ""}${exponent}`;
}
