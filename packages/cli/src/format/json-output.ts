// JSON for machines. u64 values above 2^53 are bigints in memory; they are written as exact JSON
// integers (digits, no quotes), which JSON allows. Parse such output with a bigint-aware reader
// (for example `JSON.parse` with a reviver that reads the source text, or any arbitrary-precision
// JSON library) if exact values matter; plain `JSON.parse` rounds them.

/** Serialises a value like `JSON.stringify(value, null, 2)`, writing bigints as exact integers. */
export function stringifyJson(value: unknown, indent = 2): string {
  const marker = "\u0000bigint:";
  const text = JSON.stringify(
    value,
    (_key, item: unknown) => (typeof item === "bigint" ? `${marker}${item.toString()}` : item),
    indent,
  );
  if (text === undefined) return "null";
  // The marker contains U+0000, which JSON.stringify always escapes as \u0000 inside real strings,
  // so only our placeholders contain this exact quoted form.
  return text.replace(/"\\u0000bigint:(-?[0-9]+)"/g, "$1");
}
