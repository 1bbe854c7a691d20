// Independent reimplementations of small spec rules, used as test oracles (not the packages' code).

const U64_MAX = (1n << 64n) - 1n;

/** §4.2 / §15.1 White_Space set. */
const WHITE_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005,
  0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

function trimWhiteSpace(text: string): string {
  const chars = [...text];
  let start = 0;
  let end = chars.length;
  while (start < end && WHITE_SPACE.has(chars[start]?.codePointAt(0) ?? -1)) start++;
  while (end > start && WHITE_SPACE.has(chars[end - 1]?.codePointAt(0) ?? -1)) end--;
  return chars.slice(start, end).join("");
}

const SIZES: Record<string, bigint> = {
  u8: 1n,
  i8: 1n,
  bool: 1n,
  f8: 1n,
  u16: 2n,
  i16: 2n,
  f16: 2n,
  bf16: 2n,
  u32: 4n,
  i32: 4n,
  f32: 4n,
  u64: 8n,
  i64: 8n,
  f64: 8n,
};

export function dtypeSize(label: string): bigint | undefined {
  const key = trimWhiteSpace(label).replace(/[A-Z]/g, (c) => c.toLowerCase());
  return Object.hasOwn(SIZES, key) ? SIZES[key] : undefined;
}

/** §15.2–§15.4 as bigint. */
export function denseBytes(shape: readonly (number | bigint)[], dtype: string): bigint {
  let count = 1n;
  for (const dim of shape) {
    count *= BigInt(dim);
    if (count > U64_MAX) count = U64_MAX;
  }
  if (count === 0n) return 0n;
  const size = dtypeSize(dtype);
  if (size === undefined) return 0n;
  const product = count * size;
  return product > U64_MAX ? U64_MAX : product;
}

/** §6.2 canonical float text; positive exponents spelled `e+` (the SHOULD). */
export function canonicalFloat(value: number): string {
  if (!Number.isFinite(value)) return "null";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const sign = value < 0 ? "-" : "";
  const [mantissa, exponentText] = Math.abs(value).toExponential().split("e");
  const digits = (mantissa ?? "").replace(".", "");
  const k = Number(exponentText) + 1;
  const n = digits.length;
  let body: string;
  if (k > 0 && k <= 16) {
    body = n <= k ? `${digits}${"0".repeat(k - n)}.0` : `${digits.slice(0, k)}.${digits.slice(k)}`;
  } else if (k > -5 && k <= 0) {
    body = `0.${"0".repeat(-k)}${digits}`;
  } else {
    const exp = k - 1;
    body = `${digits[0]}${n > 1 ? `.${digits.slice(1)}` : ""}e${exp > 0 ? "+" : ""}${exp}`;
  }
  return sign + body;
}

/** Code point (= UTF-8 byte) order. */
export function byCodePoint(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const diff = (left[i]?.codePointAt(0) ?? 0) - (right[i]?.codePointAt(0) ?? 0);
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}

/** The keys of the flat string map that starts at `"<key>":{` in a raw JSON line, in text order. */
export function rawObjectKeys(line: string, key: string): string[] {
  const start = line.indexOf(`"${key}":{`);
  if (start < 0) throw new Error(`no ${key} object in ${line}`);
  let position = start + key.length + 4;
  const keys: string[] = [];
  const stringAt = (): string => {
    const match = /^"((?:[^"\\]|\\.)*)"/.exec(line.slice(position));
    if (match === null) throw new Error(`expected a string at ${position} in ${line}`);
    position += match[0].length;
    return JSON.parse(match[0]) as string;
  };
  if (line[position] === "}") return keys;
  for (;;) {
    keys.push(stringAt());
    if (line[position] !== ":") throw new Error("expected ':'");
    position++;
    stringAt();
    const next = line[position++];
    if (next === "}") return keys;
    if (next !== ",") throw new Error("expected ',' or '}'");
  }
}
