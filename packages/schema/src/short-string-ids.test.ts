// The batch dictionary with its short-string table: every string once, whatever path interned it
// (the reader's cached words or the text), across clears and growth.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ColumnBatch } from "./column-batch.js";
import { SHORT_KEY_BYTES, ShortStringIds, shortStringWords } from "./short-string-ids.js";

const encoder = new TextEncoder();

/** The words the canonical cursor reads for an ASCII string: little-endian bytes, zero past the end. */
function cursorWords(text: string): Int32Array {
  const bytes = new Uint8Array(12);
  bytes.set(encoder.encode(text));
  const view = new DataView(bytes.buffer);
  return Int32Array.of(text.length, view.getInt32(0, true), view.getInt32(4, true), view.getInt32(8, true));
}

const shortAscii = fc.string({
  unit: fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)),
  maxLength: SHORT_KEY_BYTES,
});
const anyText = fc.oneof(
  shortAscii,
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "grapheme", maxLength: 6 }),
);

describe("ColumnBatch dictionary", () => {
  it("gives equal strings one id and different strings different ids, by text or by the reader's words", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.tuple(anyText, fc.boolean()), { maxLength: 60 }), { maxLength: 4 }),
        (batches) => {
          const batch = new ColumnBatch();
          for (const texts of batches) {
            batch.clear();
            const ids = new Map<string, number>();
            for (const [text, byWords] of texts) {
              const words = new Int32Array(3);
              const id =
                byWords && shortStringWords(text, words)
                  ? batch.internKey(text, cursorWords(text), 0)
                  : batch.intern(text);
              const known = ids.get(text);
              if (known === undefined) ids.set(text, id);
              else expect(id).toBe(known);
              expect(batch.strings[id]).toBe(text);
            }
            expect(batch.strings).toHaveLength(ids.size);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it("keeps every id through growth, and forgets them all on clear", () => {
    const table = new ShortStringIds();
    const key = (n: number) => [8, n, n * 7, 0] as const;
    for (let n = 0; n < 20_000; n++) {
      expect(table.find(...key(n))).toBe(-1);
      table.insert(...key(n), n);
    }
    for (let n = 0; n < 20_000; n++) expect(table.find(...key(n))).toBe(n);
    table.clear();
    expect(table.find(...key(5))).toBe(-1);
  });

  it("makes the cursor's words for short ASCII only", () => {
    const words = new Int32Array(3);
    expect(shortStringWords("matmul", words)).toBe(true);
    expect(Array.from(words)).toEqual(Array.from(cursorWords("matmul").subarray(1)));
    expect(shortStringWords("a".repeat(13), words)).toBe(false);
    expect(shortStringWords("é", words)).toBe(false);
  });
});
