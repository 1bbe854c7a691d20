// Byte order of UTF-8 equals code point order; JavaScript's `<` compares UTF-16 code units, which
// differs only between surrogates (U+D800–U+DFFF) and U+E000–U+FFFF. Remapping those two ranges
// makes a code-unit comparison agree with code point order.
function orderedUnit(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  return unit;
}

/** Compares two strings by Unicode code point (= UTF-8 byte order): negative, zero or positive. */
export function compareCodePoints(left: string, right: string): number {
  if (left === right) return 0;
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index += 1) {
    const a = left.charCodeAt(index);
    const b = right.charCodeAt(index);
    if (a !== b) return orderedUnit(a) - orderedUnit(b);
  }
  return left.length - right.length;
}
