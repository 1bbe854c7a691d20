// The browser entry points in a real browser (Debian's chromium, as the report tests use): the page
// loads a bundle of @cg/writer/core, @cg/schema, @cg/clock, @cg/memory and @cg/parser/core (Node
// built-ins left unresolved, so touching one fails), writes a trace in memory and reads it back.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let browser: Browser | undefined;
let bundle = "";

beforeAll(async () => {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("./browser-entry.ts", import.meta.url))],
    bundle: true,
    write: false,
    format: "iife",
    globalName: "cgBrowser",
    platform: "browser",
    target: "es2022",
    // Left unresolved, so a Node module anywhere in the graph shows in the bundle (checked below).
    external: ["node:*", "fs", "fs/promises"],
    logLevel: "silent",
  });
  bundle = result.outputFiles[0]?.text ?? "";
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-background-networking"],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe("browser entries in chromium", () => {
  it("write a trace in memory and read it back, with no Node global in sight", async () => {
    // No module in the bundle names a Node module, not even lazily.
    expect(
      bundle.match(/\bimport\(\s*"(node:)?[a-z_/]+"\s*\)|require\(|from\s*"(node:)?[a-z_/]+"/g),
    ).toBeNull();
    const page = await (browser as Browser).newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    await page.setContent("<!doctype html><title>cg</title>");
    await page.addScriptTag({ content: bundle });
    const result = await page.evaluate(() =>
      (globalThis as unknown as { cgBrowser: { writeAndRead(): unknown } }).cgBrowser.writeAndRead(),
    );
    await page.close();
    expect(problems).toEqual([]);
    expect(result).toEqual({
      kinds: [
        "meta",
        "span_start",
        "span_start",
        "span_start",
        ...Array(100).fill("op"),
        "memory",
        "span_end",
        "span_end",
        "span_end",
      ],
      ops: 100,
      spans: 3,
      entrypoint: "browser::update",
      derivedStorage: 16,
      firstOpStorage: 16,
      bytesOps: 100,
      streamedKinds: true,
      summaryOps: 100,
      summaryTrusted: true,
      pathRefusal: expect.stringContaining('TypeError: a file path is read by the Node entry "@cg/parser"'),
      hasProcess: false,
    });
  });
});
