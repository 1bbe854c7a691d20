// The browser entry points in a real browser (Debian's chromium, as the report tests use): the page
// loads a bundle of @cg/writer/core, @cg/schema, @cg/clock, @cg/memory and the parser's text reader
// (Node built-ins left unresolved, so touching one fails), writes a trace in memory and reads it.
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
    // The parser reaches node:fs only for a file path, through a dynamic import (its build writes
    // it as "fs"): left as it is, so the page would fail if the reading path used it.
    external: ["node:*", "fs"],
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
    // Nothing but the parser's lazy file opener names a Node module.
    expect(bundle.match(/\bimport\(\s*"(node:)?[a-z_]+"\s*\)|require\(|from\s*"node:/g)).toEqual([
      'import("fs")',
    ]);
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
      hasProcess: false,
    });
  });
});
