// Writes a result holding RowSources as JSON, byte for byte what `stringifyJson` gives for the same
// result with arrays in their place, without ever holding a whole list: each row is serialised and
// written in blocks as it is read.
import { RowSource } from "@cg/parser";
import { stringifyJson } from "../format/json-output.js";

/** Output is handed to `write` in blocks of about this many characters. */
const BLOCK_CHARS = 1 << 20;

function holdsRows(value: unknown): boolean {
  if (value instanceof RowSource) return true;
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  for (const item of Object.values(value)) if (holdsRows(item)) return true;
  return false;
}

/** `stringifyJson(value)` placed at `indent` (JSON strings hold no raw newline, so this is safe). */
function indented(value: unknown, indent: string): string {
  const text = stringifyJson(value);
  return indent === "" ? text : text.replaceAll("\n", `\n${indent}`);
}

class BlockWriter {
  #parts: string[] = [];
  #length = 0;

  constructor(readonly write: (text: string) => void) {}

  push(text: string): void {
    this.#parts.push(text);
    this.#length += text.length;
    if (this.#length >= BLOCK_CHARS) this.flush();
  }

  flush(): void {
    if (this.#length === 0 && this.#parts.length === 0) return;
    this.write(this.#parts.join(""));
    this.#parts = [];
    this.#length = 0;
  }
}

async function writeValue(value: unknown, indent: string, out: BlockWriter): Promise<void> {
  if (value instanceof RowSource) {
    const inner = `${indent}  `;
    let first = true;
    for await (const batch of value.batches()) {
      for (const row of batch) {
        out.push(`${first ? "[\n" : ",\n"}${inner}${indented(row, inner)}`);
        first = false;
      }
    }
    out.push(first ? "[]" : `\n${indent}]`);
    return;
  }
  if (!holdsRows(value)) {
    out.push(indented(value, indent));
    return;
  }
  const inner = `${indent}  `;
  // As JSON.stringify: keys whose value is undefined (or a function) are left out.
  const entries = Object.entries(value as object).filter(
    ([, item]) => item !== undefined && typeof item !== "function",
  );
  out.push("{\n");
  for (let index = 0; index < entries.length; index++) {
    const [key, item] = entries[index] as [string, unknown];
    out.push(`${inner}${JSON.stringify(key)}: `);
    await writeValue(item, inner, out);
    out.push(index === entries.length - 1 ? "\n" : ",\n");
  }
  out.push(`${indent}}`);
}

/** Writes `value` and a newline, as `stringifyJson(value) + "\n"` with every RowSource read as an array. */
export async function writeStreamedJson(value: unknown, write: (text: string) => void): Promise<void> {
  const out = new BlockWriter(write);
  await writeValue(value, "", out);
  out.push("\n");
  out.flush();
}
