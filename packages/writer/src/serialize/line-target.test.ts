// Fragments go out as 8-byte words stored as doubles: every ASCII byte, at every position and for
// every length, must come back exactly (no NaN canonicalisation, no lost or extra byte), from the
// copying loop and from the generated straight-line stores alike.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Fragment, fragmentSource, type LineTarget, lineTarget, putFragment } from "./line-target.js";

const FILL = 0xee;

function freshTarget(): LineTarget {
  return lineTarget(new Uint8Array(96).fill(FILL));
}

/** The generated stores of `text` as a function of (target, at). */
function generatedWriter(text: string): (target: LineTarget, at: number) => number {
  return new Function(
    "target",
    "start",
    `const bytes = target.bytes;\nconst view = target.view;\nlet at = start;\n${fragmentSource(text)}return at;`,
  ) as (target: LineTarget, at: number) => number;
}

function check(text: string, offset: number): void {
  const expected = Array.from(text, (character) => character.charCodeAt(0));
  for (const write of [
    (target: LineTarget) => putFragment(target, offset, new Fragment(text)),
    (target: LineTarget) => generatedWriter(text)(target, offset),
  ]) {
    const target = freshTarget();
    expect(write(target)).toBe(offset + text.length);
    expect(Array.from(target.bytes.subarray(offset, offset + text.length))).toEqual(expected);
    // Nothing before or after the fragment is touched.
    expect(target.bytes.subarray(0, offset).every((byte) => byte === FILL)).toBe(true);
    expect(target.bytes.subarray(offset + text.length).every((byte) => byte === FILL)).toBe(true);
  }
}

describe("Fragment / fragmentSource", () => {
  it("write every ASCII byte at every position of every length up to 24", () => {
    for (let length = 0; length <= 24; length++) {
      for (let code = 0; code <= 0x7f; code++) {
        for (let position = 0; position < Math.max(length, 1); position += 4) {
          const text = Array.from({ length }, (_, index) =>
            String.fromCharCode(index === position ? code : 0x61 + index),
          ).join("");
          check(text, (code + length) % 7);
        }
      }
    }
  });

  it("write any ASCII text exactly", () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)),
          maxLength: 60,
        }),
        fc.nat({ max: 20 }),
        (text, offset) => check(text, offset),
      ),
    );
  });

  it("refuse text that is not ASCII", () => {
    expect(() => new Fragment('"é"')).toThrow(/ASCII/);
    expect(() => fragmentSource("\u0080")).toThrow(/ASCII/);
  });
});
