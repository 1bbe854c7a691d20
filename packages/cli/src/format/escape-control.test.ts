import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeControl, escapeControlKeepingColour } from "./escape-control.js";

describe("escapeControl", () => {
  it("writes newlines, escapes and bidi overrides as visible text", () => {
    expect(escapeControl("a\nb.jsonl: valid, trusted")).toBe("a\\nb.jsonl: valid, trusted");
    expect(escapeControl("x\u001b[2Ky\r\t")).toBe("x\\x1b[2Ky\\r\\t");
    expect(escapeControl("\u202etxt.exe")).toBe("\\u202etxt.exe");
    expect(escapeControl("\u0085\u007f")).toBe("\\x85\\x7f");
  });

  it("keeps colour codes only where asked", () => {
    expect(escapeControlKeepingColour("\u001b[33mstale\u001b[39m\n")).toBe("\u001b[33mstale\u001b[39m\\n");
    expect(escapeControlKeepingColour("a\u001b[2Kb")).toBe("a\\x1b[2Kb");
  });

  it("leaves printable text (accents, CJK, emoji) unchanged", () => {
    expect(escapeControl("résumé 模型 🚀.jsonl")).toBe("résumé 模型 🚀.jsonl");
  });

  it("never lets a line break or escape through, for any string", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const escaped = escapeControl(text);
        expect(escaped).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
        // Escaping is the identity on text without controls, so it is idempotent.
        expect(escapeControl(escaped)).toBe(escaped);
      }),
    );
  });
});
