// Element size by dtype label (spec §15.1).

/** Unicode White_Space (spec §4.2): unlike String.prototype.trim, U+0085 is trimmed and U+FEFF is not. */
function isUnicodeWhiteSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0x85) return false;
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

/** Trims the spec §4.2 White_Space set at both ends (the same set the line reader uses). */
export function trimUnicodeWhiteSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isUnicodeWhiteSpace(text.charCodeAt(start))) start++;
  while (end > start && isUnicodeWhiteSpace(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** Lower-cases A–Z only; every other character (full-width letters, Kelvin sign, …) is kept. */
function asciiLowerCase(text: string): string {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0x41 && code <= 0x5a) return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
  }
  return text;
}

/** Exact lookup of an already normalised label. */
function sizeOfCanonicalLabel(label: string): number | undefined {
  switch (label) {
    case "u8":
    case "i8":
    case "bool":
    case "f8":
      return 1;
    case "u16":
    case "i16":
    case "f16":
    case "bf16":
      return 2;
    case "u32":
    case "i32":
    case "f32":
      return 4;
    case "u64":
    case "i64":
    case "f64":
      return 8;
    default:
      return undefined;
  }
}

/**
 * Bytes per element of a dtype label, or `undefined` for an unknown label (spec §15.1). The label
 * is trimmed of Unicode White_Space and ASCII-lower-cased first, so `" BF16\n"` is 2 while
 * `"float32"`, `"f8e4m3"` and `""` are unknown. Already-canonical labels allocate nothing.
 */
export function dtypeSizeBytes(label: string): number | undefined {
  const direct = sizeOfCanonicalLabel(label);
  if (direct !== undefined) return direct;
  return sizeOfCanonicalLabel(asciiLowerCase(trimUnicodeWhiteSpace(label)));
}

/** True when {@link dtypeSizeBytes} knows the label. */
export function isKnownDtype(label: string): boolean {
  return dtypeSizeBytes(label) !== undefined;
}
