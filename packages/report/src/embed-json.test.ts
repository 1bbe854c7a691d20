import { describe, expect, it } from "vitest";
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
