import { describe, expect, it } from "vitest";
import { pageScript } from "./page-script.js";

describe("pageScript", () => {
  it("is one self-contained script with no terminator, URL or module reference", () => {
    const script = pageScript();
    expect(script).not.toMatch(/<\/script|<!--/i);
    expect(script).not.toMatch(/https?:\/\//);
    // Bundler or test-runner rewrites of imports would break the inlined functions.
    expect(script).not.toMatch(/__vi_import|__vite_ssr|require\(|import\(/);
    expect(() => new Function(script)).not.toThrow();
  });
});
