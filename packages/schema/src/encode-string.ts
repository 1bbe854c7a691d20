// `isWellFormed`/`toWellFormed` exist on Node ≥ 20 and current browsers; the ES2023 lib lacks their types.
interface WellFormedString {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/**
 * JSON string literal in the reference's escaping (spec §4.6): `"`, `\` and U+0000–U+001F escaped,
 * everything else literal. That is `JSON.stringify` for well-formed strings. A lone surrogate cannot
 * be represented in the reference's strings (and readers reject `\ud800`), so it is replaced by
 * U+FFFD rather than written as an escape no reader would accept.
 */
export function encodeJsonString(value: string): string {
  const text = value as unknown as WellFormedString;
  return JSON.stringify(text.isWellFormed() ? value : text.toWellFormed());
}
