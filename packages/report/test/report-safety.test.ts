// Hostile traces: every string is shown as text and nothing from the trace ever runs.
import { describe, expect, it } from "vitest";
import { renderReport } from "../src/index.js";
import { browserForFile, openReport, screenshot, showView } from "./browser-harness.js";
import { hostileTrace, payloads } from "./hostile-trace.js";

const browser = browserForFile();

describe("report of a hostile trace", () => {
  it("keeps the embedded data inside its script element", () => {
    const html = renderReport(hostileTrace(), { label: payloads.svg, baseline: hostileTrace() });
    // Exactly the two script elements of the page, whatever the trace contains.
    expect(html.match(/<script/gi)).toHaveLength(2);
    expect(html.match(/<\/script/gi)).toHaveLength(2);
    expect(html).not.toContain("\u2028");
    expect(html).not.toContain("\u2029");
    expect(html).not.toMatch(/<img|<script>window|<svg onload/i);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it("executes nothing and shows every payload as text in every view", async () => {
    const document = hostileTrace();
    const { page, problems } = await openReport(
      browser(),
      renderReport(document, {
        label: payloads.svg,
        baseline: hostileTrace(),
        baselineLabel: payloads.script,
      }),
      "hostile",
    );
    const pwned = () => page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned);

    await expect(page.title()).resolves.toBe(`train ${payloads.script} — trace report`);
    await expect(page.locator("h1").textContent()).resolves.toBe(`train ${payloads.script} — trace report`);
    const tags = await page.getByTestId("tags").textContent();
    expect(tags).toContain(payloads.image);
    expect(tags).toContain(payloads.script);
    expect(tags).toContain(payloads.separators);
    const provenance = await page.getByTestId("provenance").textContent();
    expect(provenance).toContain(payloads.svg);
    expect(provenance).toContain(`cuda:0${payloads.image}`);

    await showView(page, "timeline");
    const chart = page.getByTestId("flame-chart");
    const box = await chart.boundingBox();
    if (!box) throw new Error("flame chart has no box");
    for (let x = box.x + 2; x < box.x + box.width; x += 40) {
      for (let y = box.y + 25; y < box.y + box.height; y += 11) await page.mouse.move(x, y);
    }
    await chart.focus();
    const seen: string[] = [];
    for (let step = 0; step < 4; step++) {
      await page.keyboard.press("ArrowDown");
      seen.push(await page.getByTestId("span-details").innerText());
    }
    expect(seen.join("\n")).toContain(payloads.script);
    expect(seen.join("\n")).toContain(payloads.image);

    await showView(page, "spans");
    await expect(page.getByTestId("span-costs").textContent()).resolves.toContain(
      `${payloads.image}/${payloads.script}`,
    );
    await showView(page, "memory");
    const atPeak = await page.getByTestId("peak-allocations").textContent();
    expect(atPeak).toContain(payloads.script);
    expect(atPeak).toContain(payloads.image);
    await showView(page, "gradients");
    await expect(page.getByTestId("gradients").textContent()).resolves.toContain(
      `${payloads.image}/${payloads.script}`,
    );
    await showView(page, "comparison");
    await expect(page.locator("#panel-comparison").textContent()).resolves.toContain(payloads.script);
    await screenshot(page, "hostile-comparison");

    // No element was created from trace text: only the page's own markup exists.
    await expect(page.locator("img, iframe, object, embed").count()).resolves.toBe(0);
    await expect(page.locator("script").count()).resolves.toBe(2);
    await expect(pwned()).resolves.toBeUndefined();
    expect(problems).toEqual([]);
    await page.close();
  });
});
