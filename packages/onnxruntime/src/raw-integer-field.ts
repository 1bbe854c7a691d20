// JSON.parse turns every number into a double, so an integer above 2^53 comes back rounded. This
// reads the digits a top-level field of one JSON object was written with, exactly. It walks the
// text once, skipping strings and nested values, and takes the last occurrence of the key like
// JSON.parse does. Only called for values JSON.parse could not give exactly, on text JSON.parse
// already accepted.

/** The source text of the number of top-level field `key` of the JSON object `text`, or undefined. */
export function rawNumberField(text: string, key: string): string | undefined {
  let found: string | undefined;
  let depth = 0;
  let index = 0;
  let expectKey = false;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === '"') {
      const end = stringEnd(text, index);
      if (depth === 1 && expectKey) {
        const name = text.slice(index, end);
        index = skipSpace(text, end);
        if (text[index] === ":") {
          index = skipSpace(text, index + 1);
          if (decodeKey(name) === key) {
            const match = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(index, index + 400));
            found = match?.[0];
          }
        }
        expectKey = false;
        continue;
      }
      index = end;
      continue;
    }
    if (char === "{" || char === "[") {
      depth++;
      expectKey = char === "{" && depth === 1;
    } else if (char === "}" || char === "]") {
      depth--;
    } else if (char === "," && depth === 1) {
      expectKey = true;
    }
    index++;
  }
  return found;
}

function stringEnd(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length && text[index] !== '"') index += text[index] === "\\" ? 2 : 1;
  return index + 1;
}

function skipSpace(text: string, start: number): number {
  let index = start;
  while (index < text.length && /\s/.test(text[index] as string)) index++;
  return index;
}

// A key spelled with escapes (`"t\u0073"`) is the key JSON.parse gives.
function decodeKey(quoted: string): string {
  return quoted.includes("\\") ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
}
