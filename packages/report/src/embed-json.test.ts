import { describe, expect, it } from "vitest";
import { downsampleByMaximum } from "./downsample.js";
import { embedJson } from "./embed-json.js";
import { escapeHtml } from "./escape-html.js";
import { toExact } from "./exact-number.js";

describe("embedJson", () => {
  it("cannot close its script element and round-trips exactly", () => {
    const value = { name: "</script><script>alert(1)</script><!-- \u2028\u2029 & >", nested: ["</SCRIPT>"] };
    const text = embedJson(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe("escapeHtml", () => {
  it("escapes markup and quotes", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
    );
  });
});

describe("toExact", () => {
  it("keeps u64 values past 2^53 as exact decimal strings", () => {
    expect(toExact(18446744073709551615n)).toBe("18446744073709551615");
    expect(toExact(9007199254740993n)).toBe("9007199254740993");
    expect(toExact(9007199254740991n)).toBe(9007199254740991);
    expect(toExact(4096)).toBe(4096);
    expect(toExact(0.42)).toBe(0.42);
  });
});

describe("downsampleByMaximum", () => {
  it("keeps first, last and the largest of every bucket", () => {
    const values = Array.from({ length: 1000 }, (_, index) => (index === 517 ? 10_000 : index % 7));
    const kept = downsampleByMaximum(values, 50, (value) => value);
    expect(kept.length).toBeLessThanOrEqual(50);
    expect(kept[0]).toBe(values[0]);
    expect(kept[kept.length - 1]).toBe(values[999]);
    expect(kept).toContain(10_000);
  });

  it("returns short series unchanged", () => {
    expect(downsampleByMaximum([3, 1, 2], 10, (value) => value)).toEqual([3, 1, 2]);
  });
});
