const SURROGATE = /[\ud800-\udfff]/;

/**
 * Compares strings by Unicode code point, which equals the byte order of their UTF-8 encodings
 * (the order of span ids and `tags` keys, spec §7.3). JavaScript's `<` compares UTF-16 code units,
 * which differs only when a character above U+FFFF meets one in U+E000–U+FFFF.
 */
export function compareCodePoints(left: string, right: string): number {
  if (left === right) return 0;
  if (!SURROGATE.test(left) && !SURROGATE.test(right)) return left < right ? -1 : 1;
  const leftPoints = Array.from(left, (character) => character.codePointAt(0) ?? 0);
  const rightPoints = Array.from(right, (character) => character.codePointAt(0) ?? 0);
  const length = Math.min(leftPoints.length, rightPoints.length);
  for (let index = 0; index < length; index++) {
    const difference = (leftPoints[index] ?? 0) - (rightPoints[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return leftPoints.length - rightPoints.length;
}
