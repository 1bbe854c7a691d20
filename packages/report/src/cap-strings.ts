// A 1 MB span name would otherwise be embedded once per place it is shown (the flame chart, the
// cost table, the comparison, …) and make a 40 MB page. Every long string is shown cut, and its
// full value is kept once in the payload, shown when the reader asks for it.

/** Strings longer than this many UTF-16 units are shown cut. */
export const DISPLAY_STRING_LIMIT = 200;

/** The cut form of a long string: its start and how much is left out. */
export function cutString(text: string, limit = DISPLAY_STRING_LIMIT): string {
  const end = /[\uD800-\uDBFF]/.test(text.charAt(limit - 1)) ? limit - 1 : limit; // whole code points
  return `${text.slice(0, end)}… (+${text.length - end} characters)`;
}

/**
 * Replaces, in place, every string value of `value` longer than `limit` by its cut form, and
 * returns the full values by cut form (each distinct string once). Object keys are left alone:
 * the payload carries trace strings only as values.
 */
export function capStrings(value: unknown, limit = DISPLAY_STRING_LIMIT): Record<string, string> {
  const full: Record<string, string> = {};
  const cap = (text: string): string => {
    if (text.length <= limit) return text;
    const cut = cutString(text, limit);
    full[cut] = text;
    return cut;
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index += 1) {
        const item = node[index];
        if (typeof item === "string") node[index] = cap(item);
        else if (typeof item === "object" && item !== null) visit(item);
      }
      return;
    }
    if (typeof node !== "object" || node === null) return;
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (typeof item === "string") record[key] = cap(item);
      else if (typeof item === "object" && item !== null) visit(item);
    }
  };
  visit(value);
  return full;
}
