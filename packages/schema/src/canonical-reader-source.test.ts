import { describe, expect, it } from "vitest";
import { ReaderSource } from "./canonical-reader-source.js";

describe("ReaderSource.enumMatch", () => {
  it("compares a variant as words only when its JSON string is its bytes between quotes", () => {
    const source = new ReaderSource();
    const read = source.enumMatch(["alloc", "é", 'a"b', "a\\b", "free"], "fallback()", String);
    // Two literals, in variant order, then the fallback for everything else.
    expect(read.match(/stepOver\(\d+\), \d+\)/g)).toEqual(["stepOver(7), 0)", "stepOver(6), 4)"]);
    expect(read.endsWith("fallback()))")).toBe(true);
  });

  it("gives the fallback alone when no variant is plain ASCII", () => {
    expect(new ReaderSource().enumMatch(["é"], "fallback()", String)).toBe("fallback()");
  });
});
