// One headless Debian chromium per test file, driven by playwright-core (never a downloaded browser).
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";

export const outputDir = fileURLToPath(new URL("../test-output/", import.meta.url));

function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-background-networking"],
  });
}

/**
 * The browser of the calling test file: launched before its first test and closed after its last.
 * The returned function gives it inside a test.
 */
export function browserForFile(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (browser === undefined)
      throw new Error("the browser is launched in beforeAll: call this inside a test");
    return browser;
  };
}

export interface OpenedReport {
  page: Page;
  /** Console errors, page errors and any request that left the file. */
  problems: string[];
  path: string;
}

/** Writes the report into test-output/ and opens it from file://, recording every problem. */
export async function openReport(
  browser: Browser,
  html: string,
  name: string,
  options: { colorScheme?: "light" | "dark"; width?: number } = {},
): Promise<OpenedReport> {
  mkdirSync(outputDir, { recursive: true });
  const path = `${outputDir}${name}.html`;
  writeFileSync(path, html);
  const page = await browser.newPage({
    viewport: { width: options.width ?? 1280, height: 900 },
    colorScheme: options.colorScheme ?? "light",
  });
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning")
      problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("dialog", (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on("request", (request) => {
    if (!request.url().startsWith("file:")) problems.push(`request: ${request.url()}`);
  });
  await page.goto(pathToFileURL(path).href);
  await page.locator('[role="tablist"]').waitFor();
  return { page, problems, path };
}

export async function showView(page: Page, id: string): Promise<void> {
  await page.locator(`#tab-${id}`).click();
  await page.locator(`#panel-${id}`).waitFor({ state: "visible" });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  const path = `${outputDir}${name}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}
