import { describe, expect, it } from "vitest";
import { dtypeSizeBytes, isKnownDtype } from "./dtype-size.js";

describe("dtypeSizeBytes (spec §15.1)", () => {
  it.each([
    ["u8", 1],
    ["i8", 1],
    ["bool", 1],
    ["f8", 1],
    ["u16", 2],
    ["i16", 2],
    ["f16", 2],
    ["bf16", 2],
    ["u32", 4],
    ["i32", 4],
    ["f32", 4],
    ["u64", 8],
    ["i64", 8],
    ["f64", 8],
  ])("%s is %i bytes", (label, size) => {
    expect(dtypeSizeBytes(label)).toBe(size);
    expect(isKnownDtype(label)).toBe(true);
  });

  it.each(["float32", "fp16", "f8e4m3", "f6e2m3", "f6e3m2", "f4", "f8e8m0", "", " ", "F32x", "f 32"])(
    "%j is unknown",
    (label) => {
      expect(dtypeSizeBytes(label)).toBeUndefined();
      expect(isKnownDtype(label)).toBe(false);
    },
  );

  it("trims Unicode White_Space and lower-cases ASCII", () => {
    expect(dtypeSizeBytes("F32")).toBe(4);
    expect(dtypeSizeBytes(" bf16 ")).toBe(2);
    expect(dtypeSizeBytes("\tI64\n")).toBe(8);
    expect(dtypeSizeBytes("\u0085BOOL\u3000")).toBe(1);
    expect(dtypeSizeBytes("\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205fU16\r\u000b\u000c")).toBe(2);
  });

  it("keeps U+FEFF and non-ASCII letters", () => {
    expect(dtypeSizeBytes("\ufefff32")).toBeUndefined();
    expect(dtypeSizeBytes("f32\ufeff")).toBeUndefined();
    expect(dtypeSizeBytes("Ｆ32")).toBeUndefined();
    // U+212A KELVIN SIGN lower-cases to "k" under full Unicode rules; ASCII-only must not touch it.
    expect(dtypeSizeBytes("\u0130\u0038")).toBeUndefined();
    expect(dtypeSizeBytes("\u200bf32")).toBeUndefined();
  });

  it("trims like the line reader, not like String.prototype.trim (U+0085 trimmed, U+FEFF kept)", () => {
    expect(dtypeSizeBytes("\u0085f32\u0085")).toBe(4);
    expect(dtypeSizeBytes("\ufefff32")).toBeUndefined();
    expect(dtypeSizeBytes("\u3000bf16\u2029")).toBe(2);
  });
});
