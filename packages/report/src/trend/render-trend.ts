// The trend page of a fleet: one offline HTML file of inline SVG charts and CSS, no script at all,
// so its Content-Security-Policy allows nothing but its own style.
import { escapeHtml } from "../escape-html.js";
import { pageHead } from "../page-head.js";
import { renderTrendChart } from "./trend-chart.js";
import type { TrendPageInput, TrendSeries, TrendStatus } from "./trend-input.js";
import { trendStyle } from "./trend-style.js";

const BADGE: Record<TrendStatus, string> = {
  regression: "bad",
  improvement: "good",
  unchanged: "ok",
  "no data": "none",
};

function seriesCard(series: TrendSeries, input: TrendPageInput, large: boolean): string {
  const size = large ? { width: 1080, height: 260 } : { width: 520, height: 170 };
  return [
    `<section class="card${large ? "" : " small"}" data-card="${escapeHtml(series.id)}">`,
    `<h2>${escapeHtml(series.title)} <span class="badge ${BADGE[series.status]}">${escapeHtml(series.status)}</span></h2>`,
    series.detail === undefined ? "" : `<p class="detail">${escapeHtml(series.detail)}</p>`,
    `<div class="chart">${renderTrendChart(series, input.runs, size)}</div>`,
    "</section>",
  ].join("");
}

/** The complete page; every string from the input is escaped. */
export function renderTrendHtml(input: TrendPageInput): string {
  const [first, second, ...rest] = input.series;
  const large = [first, second].filter((series): series is TrendSeries => series !== undefined);
  const regressed = input.series.some((series) => series.status === "regression");
  return [
    // No script runs and nothing may be fetched: the page is its own markup and style.
    ...pageHead(input.title, trendStyle),
    `<header><h1>${escapeHtml(input.title)}</h1><span id="verdict" class="badge ${regressed ? "bad" : "ok"}">${regressed ? "REGRESSION" : "OK"}</span></header>`,
    "<main>",
    `<dl class="facts">${input.facts.map(([term, value]) => `<dt>${escapeHtml(term)}</dt><dd>${escapeHtml(value)}</dd>`).join("")}</dl>`,
    '<p class="legend"><span class="key baseline"></span>baseline window <span class="key candidate"></span>candidate window <span class="key band"></span>baseline median ± noise band <span class="key flagged"></span>flagged run</p>',
    ...large.map((series) => seriesCard(series, input, true)),
    rest.length === 0
      ? ""
      : `<h2 class="section">Top operators</h2><div class="grid">${rest.map((series) => seriesCard(series, input, false)).join("")}</div>`,
    "</main>",
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
