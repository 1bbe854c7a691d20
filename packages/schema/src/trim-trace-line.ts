// Line trimming of spec §4.2: the Unicode White_Space set, which differs from String#trim in two
// code points (U+FEFF is kept, so a BOM still fails to parse; U+0085 is removed).

/** True for a UTF-16 code unit with the Unicode White_Space property. */
export function isTraceWhiteSpace(code: number): boolean {
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

/**
 * Removes White_Space characters from both ends of a physical line (spec §4.2). A line that is
 * empty afterwards is blank and is skipped by readers (it still counts as a physical line).
 */
export function trimTraceLine(line: string): string {
  const length = line.length;
  if (length === 0) return line;
  // Fast path: canonical lines start with `{` and end with `}`.
  if (!isTraceWhiteSpace(line.charCodeAt(0)) && !isTraceWhiteSpace(line.charCodeAt(length - 1))) return line;
  let start = 0;
  while (start < length && isTraceWhiteSpace(line.charCodeAt(start))) start++;
  let end = length;
  while (end > start && isTraceWhiteSpace(line.charCodeAt(end - 1))) end--;
  return line.slice(start, end);
}
