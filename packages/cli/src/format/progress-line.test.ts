import { describe, expect, it } from "vitest";
import { progressLine } from "./progress-line.js";

const MiB = 1024 * 1024;

describe("progressLine", () => {
  it("shows phase, share, bytes, rate and time left", () => {
    expect(progressLine("reading", "big.jsonl", 450 * MiB, 1000 * MiB, 2000)).toBe(
      "reading big.jsonl: 45% (450.00 MiB of 1000.00 MiB) at 225.00 MiB/s, about 2 s left",
    );
    expect(progressLine("reading", "big.jsonl", 10 * MiB, 1000 * MiB, 1000)).toContain(
      "about 1 min 39 s left",
    );
  });

  it("leaves out the rate until it means something, and escapes the path", () => {
    expect(progressLine("reading", "a\nb", 1, 100, 10)).toBe("reading a\\nb: 1% (1 B of 100 B)");
  });
});
