// The attribution section of the Comparison tab in a real browser, on a pair with a slowed op and
// a peak that moved into the optimizer: the ranked rows, the unmatched and other rows, the sentence
// naming both peaks' spans, and names shown as text. Its screenshot is the README's.
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { compareTraces, parseTraceText, type TraceDocument } from "@cg/parser";
import { describe, expect, it } from "vitest";
import { renderReport } from "../src/index.js";
import { browserForFile, openReport, screenshot, showView } from "./browser-harness.js";

const browser = browserForFile();

/** A measured step: three layers of ops, a kept gradient per backward, an optimizer scratch buffer. */
function step(options: { matmulNs: number; optimizerScratch: number; layerName?: string }): TraceDocument {
  const events: object[] = [
    {
      kind: "meta",
      schema: "candle-graph/trace/6",
      run_id: "r",
      correlation_id: "c",
      entrypoint: "model::train",
      phase: "train",
      timestamp: "2026-01-01T00:00:00.000Z",
      capture_step: 1,
      warmup_steps: 0,
      device: "cuda:0",
      timing_mode: "host",
      tags: {},
    },
    { kind: "span_start", id: "s1", name: "model::train", start_ns: 0, span_kind: "function" },
    {
      kind: "span_start",
      id: "s2",
      parent_id: "s1",
      name: "update-7",
      start_ns: 0,
      span_kind: "function",
      measured: true,
    },
  ];
  let clock = 0;
  let id = 2;
  const memory = (
    span: string,
    tensor: string,
    bytes: number,
    action: string,
    category: string,
    op: string,
  ) =>
    events.push({
      kind: "memory",
      span_id: span,
      tensor_id: tensor,
      device: "cuda:0",
      bytes,
      action,
      dtype: "f32",
      category,
      op_name: op,
      timestamp_ns: clock++,
    });
  const span = (name: string, step: string, body: (span: string) => void) => {
    const spanId = `s${++id}`;
    const start = clock;
    events.push({
      kind: "span_start",
      id: spanId,
      parent_id: "s2",
      name,
      start_ns: start,
      span_kind: "module",
      step,
    });
    clock += 1000;
    body(spanId);
    events.push({ kind: "span_end", id: spanId, duration_ns: clock - start });
  };
  const op = (spanId: string, name: string, ns: number) => {
    events.push({
      kind: "op",
      span_id: spanId,
      op_name: name,
      shape: [64, 512],
      dtype: "bf16",
      device: "cuda:0",
      duration_ns: ns,
      timestamp_ns: clock,
    });
    clock += ns;
  };
  for (let layer = 0; layer < 3; layer++) {
    span(`${options.layerName ?? "block"}.${layer}/forward`, "forward", (s) => {
      memory(s, `act.${layer}`, 4 << 20, "alloc", "activation", "matmul");
      op(s, "matmul", layer === 1 ? options.matmulNs : 40_000);
      op(s, "gelu", 9_000);
    });
  }
  for (let layer = 2; layer >= 0; layer--) {
    span(`${options.layerName ?? "block"}.${layer}/backward`, "backward", (s) => {
      memory(s, `grad.${layer}`, 8 << 20, "alloc", "gradient", "matmul_grad");
      op(s, "matmul_grad", 80_000);
      memory(s, `act.${layer}`, 4 << 20, "free", "activation", "matmul_grad");
    });
  }
  span("optimizer", "optimizer", (s) => {
    memory(s, "adam.tmp", options.optimizerScratch, "alloc", "optimizer", "adam_flatten");
    op(s, "adam", 30_000);
    memory(s, "adam.tmp", options.optimizerScratch, "free", "optimizer", "adam_flatten");
  });
  events.push({ kind: "span_end", id: "s2", duration_ns: clock });
  events.push({ kind: "span_end", id: "s1", duration_ns: clock + 10 });
  return parseTraceText(events.map((event) => JSON.stringify(event)).join("\n"));
}

describe("Comparison tab: attribution", () => {
  it("ranks what explains the time and peak deltas, and says where the peak moved", async () => {
    const baseline = step({ matmulNs: 40_000, optimizerScratch: 1 << 20 });
    const candidate = step({ matmulNs: 95_000, optimizerScratch: 16 << 20 });
    const comparison = compareTraces(baseline, candidate);
    const attribution = comparison.attribution;
    if (attribution === undefined) throw new Error("no attribution");
    expect(attribution.peak.moved).toBe(true);
    const { page, problems } = await openReport(
      browser(),
      renderReport(candidate, { label: "candidate.jsonl", baseline, baselineLabel: "baseline.jsonl" }),
      "comparison-attribution",
    );
    await showView(page, "comparison");
    const time = page.getByTestId("attribution-time-parts").locator("tbody tr");
    await expect(time.count()).resolves.toBe(attribution.time.parts.length + 2);
    const first = await time.first().locator("td").allTextContents();
    expect(first.slice(0, 3)).toEqual([
      "1",
      "matmul [64, 512] bf16 cuda:0 in model::train/update-7/block.1/forward [module]/Forward",
      "+55.000 µs",
    ]);
    expect(first[4]).toBe("100.0%");
    expect(first[5]).toBe("40.000 µs → 95.000 µs");
    const peak = page.getByTestId("attribution-peak-parts").locator("tbody tr");
    const firstPeak = await peak.first().locator("td").allTextContents();
    expect(firstPeak[1]).toBe(
      "optimizer from adam_flatten in model::train/update-7/optimizer [module]/Optimizer",
    );
    expect(firstPeak[2]).toBe("+16.00 MiB");
    await expect(page.getByTestId("attribution-peak").textContent()).resolves.toContain(
      "The peak moved from model::train/update-7/block.0/backward [module]/Backward to model::train/update-7/optimizer [module]/Optimizer.",
    );
    // The rows add up to the delta: parts, unmatched and other, as the page shows them.
    const rest = await peak
      .nth(attribution.peak.parts.length + 1)
      .locator("td")
      .allTextContents();
    expect(rest[1]).toBe("other: 0 smaller parts");
    const shot = await screenshot(page, "comparison-attribution");
    const docs = join(__dirname, "../../../docs/screenshots");
    mkdirSync(docs, { recursive: true });
    copyFileSync(shot, join(docs, "comparison-attribution.png"));
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows a hostile span name as text", async () => {
    const name = '<img src=x onerror="alert(1)">';
    const baseline = step({ matmulNs: 40_000, optimizerScratch: 1 << 20, layerName: name });
    const candidate = step({ matmulNs: 60_000, optimizerScratch: 1 << 20, layerName: name });
    const { page, problems } = await openReport(
      browser(),
      renderReport(candidate, { baseline }),
      "comparison-attribution-hostile",
    );
    await showView(page, "comparison");
    await expect(
      page.getByTestId("attribution-time-parts").locator("tbody tr").first().textContent(),
    ).resolves.toContain(`${name}.1/forward`);
    await expect(page.locator("img").count()).resolves.toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });
});
