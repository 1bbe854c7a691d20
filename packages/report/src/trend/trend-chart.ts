// One series as an inline SVG chart: the run values as a line with a point per run, the baseline and
// candidate windows shaded, the baseline's noise band and median, candidate points marked when the
// series regressed. Every label comes from the data, so all text is escaped; hovering a point shows
// its run through the SVG <title>.
import { escapeHtml } from "../escape-html.js";
import type { TrendRun, TrendSeries } from "./trend-input.js";
import { formatTrendValue, niceTicks } from "./trend-units.js";

export interface ChartSize {
  width: number;
  height: number;
}

const MARGIN = { top: 10, right: 12, bottom: 22, left: 70 };

/** Two decimals are enough for positions in a few hundred pixels. */
const px = (value: number): string => (Math.round(value * 100) / 100).toString();

/** The y range: every finite value and the band, padded by a tenth. */
function valueRange(series: TrendSeries): [number, number] {
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const value of series.values) {
    if (!Number.isFinite(value)) continue;
    if (value < low) low = value;
    if (value > high) high = value;
  }
  if (series.band !== undefined) {
    low = Math.min(low, series.band.low);
    high = Math.max(high, series.band.high);
  }
  if (!Number.isFinite(low)) return [0, 1];
  if (high === low) return [low === 0 ? 0 : low * 0.9, high === 0 ? 1 : high * 1.1];
  const pad = (high - low) / 10;
  return [Math.max(0, low - pad), high + pad];
}

/** The indexes of the first and last run of a window, or undefined when no run is in it. */
function windowSpan(runs: readonly TrendRun[], window: TrendRun["window"]): [number, number] | undefined {
  const first = runs.findIndex((run) => run.window === window);
  if (first === -1) return undefined;
  let last = first;
  for (let index = first; index < runs.length; index++) if (runs[index]?.window === window) last = index;
  return [first, last];
}

export function renderTrendChart(series: TrendSeries, runs: readonly TrendRun[], size: ChartSize): string {
  const plotWidth = size.width - MARGIN.left - MARGIN.right;
  const plotHeight = size.height - MARGIN.top - MARGIN.bottom;
  const [low, high] = valueRange(series);
  const step = runs.length > 1 ? plotWidth / (runs.length - 1) : 0;
  const x = (index: number) => MARGIN.left + (runs.length > 1 ? index * step : plotWidth / 2);
  const y = (value: number) => MARGIN.top + plotHeight - ((value - low) / (high - low)) * plotHeight;
  const half = runs.length > 1 ? step / 2 : plotWidth / 2;
  const parts: string[] = [];
  const label = `${series.title}: ${series.status}`;
  parts.push(
    `<svg class="trend-chart" data-series="${escapeHtml(series.id)}" data-status="${series.status}" role="img" aria-label="${escapeHtml(label)}" viewBox="0 0 ${size.width} ${size.height}" width="${size.width}" height="${size.height}">`,
  );
  // Windows behind everything: baseline blue, candidate amber.
  for (const [window, className] of [
    ["baseline", "window-baseline"],
    ["candidate", "window-candidate"],
  ] as const) {
    const span = windowSpan(runs, window);
    if (span === undefined) continue;
    const left = Math.max(MARGIN.left, x(span[0]) - half);
    const right = Math.min(MARGIN.left + plotWidth, x(span[1]) + half);
    parts.push(
      `<rect class="${className}" x="${px(left)}" y="${MARGIN.top}" width="${px(Math.max(1, right - left))}" height="${plotHeight}"/>`,
    );
  }
  for (const tick of niceTicks(low, high, 4)) {
    const tickY = y(tick);
    parts.push(
      `<line class="grid" x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${px(tickY)}" y2="${px(tickY)}"/>`,
      `<text class="tick" x="${MARGIN.left - 6}" y="${px(tickY + 4)}" text-anchor="end">${escapeHtml(formatTrendValue(tick, series.unit))}</text>`,
    );
  }
  const baselineSpan = windowSpan(runs, "baseline");
  const candidateSpan = windowSpan(runs, "candidate");
  if (series.band !== undefined && baselineSpan !== undefined) {
    // The band runs from the baseline window through the candidate window: where the new runs should be.
    const left = Math.max(MARGIN.left, x(baselineSpan[0]) - half);
    const right = Math.min(MARGIN.left + plotWidth, x((candidateSpan ?? baselineSpan)[1]) + half);
    const top = y(series.band.high);
    const bandTitle = `baseline median ${formatTrendValue(series.band.median, series.unit)}, noise band ${formatTrendValue(series.band.low, series.unit)} – ${formatTrendValue(series.band.high, series.unit)}`;
    parts.push(
      `<rect class="band" x="${px(left)}" y="${px(top)}" width="${px(Math.max(1, right - left))}" height="${px(Math.max(1, y(series.band.low) - top))}"><title>${escapeHtml(bandTitle)}</title></rect>`,
      `<line class="median" x1="${px(left)}" x2="${px(right)}" y1="${px(y(series.band.median))}" y2="${px(y(series.band.median))}"/>`,
    );
  }
  // The line through every run with a value, broken where a run has none.
  let path = "";
  let pen = false;
  series.values.forEach((value, index) => {
    if (!Number.isFinite(value)) {
      pen = false;
      return;
    }
    path += `${pen ? "L" : "M"}${px(x(index))} ${px(y(value))}`;
    pen = true;
  });
  if (path !== "") parts.push(`<path class="line" d="${path}"/>`);
  const radius = runs.length > 200 ? 1.6 : runs.length > 60 ? 2.4 : 3.4;
  series.values.forEach((value, index) => {
    const run = runs[index];
    if (run === undefined || !Number.isFinite(value)) return;
    const flagged = series.status === "regression" && run.window === "candidate";
    const classes = ["point", run.window ?? "older", run.trusted ? "" : "untrusted", flagged ? "flagged" : ""]
      .filter((name) => name !== "")
      .join(" ");
    const hover = `${run.runId} (${run.label})${run.trusted ? "" : ", untrusted"}: ${formatTrendValue(value, series.unit)}`;
    parts.push(
      `<circle class="${classes}" data-run="${escapeHtml(run.runId)}" cx="${px(x(index))}" cy="${px(y(value))}" r="${flagged ? radius + 1.6 : radius}"><title>${escapeHtml(hover)}</title></circle>`,
    );
  });
  // First and last run under the axis.
  const first = runs[0];
  const last = runs[runs.length - 1];
  if (first !== undefined && last !== undefined) {
    parts.push(
      `<text class="tick" x="${MARGIN.left}" y="${size.height - 6}">${escapeHtml(first.label)}</text>`,
      `<text class="tick" x="${MARGIN.left + plotWidth}" y="${size.height - 6}" text-anchor="end">${escapeHtml(last.label)}</text>`,
    );
  }
  parts.push("</svg>");
  return parts.join("");
}
