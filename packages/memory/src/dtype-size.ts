// Element size by dtype label (spec §15.1). Labels are trimmed with the line reader's White_Space
// set (spec §4.2: U+0085 trimmed, U+FEFF kept), which @cg/schema owns.
import { trimTraceLine } from "@cg/schema/core";

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
  return sizeOfCanonicalLabel(asciiLowerCase(trimTraceLine(label)));
}

/** True when {@link dtypeSizeBytes} knows the label. */
export function isKnownDtype(label: string): boolean {
  return dtypeSizeBytes(label) !== undefined;
}
