/** The report's stylesheet: system fonts only, light and dark themes from prefers-color-scheme. */
export const pageStyle = `
:root {
  color-scheme: light dark;
  --bg: #f7f7f9; --card: #ffffff; --text: #1d1f24; --muted: #5b6270; --grid: #dde0e6; --border: #d3d7de;
  --accent: #2457c5; --ok: #1b7a3d; --bad: #b3261e; --warn: #8a5a00; --on-bar: #111318;
  --step-forward: #7fb0f0; --step-backward: #f2a65e; --step-optimizer: #79c98f;
  --span-function: #c3c8d2; --span-module: #8fd3cf; --span-op: #b6a8e0; --op-mark: #3a3f4b;
  --measured: #6b3fa0; --selection: #d11f5c;
  --cat-parameter: #6c8ebf; --cat-optimizer: #82b366; --cat-gradient: #d79b00; --cat-activation: #e57373; --cat-other: #9e9e9e;
  --device-used: #d9534f; --device-free: #5cb85c; --device-reserved: #5b7fd6;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #15171c; --card: #1f232b; --text: #e6e8ee; --muted: #a3aab8; --grid: #343a46; --border: #3a404c;
    --accent: #8ab4ff; --ok: #6fd08f; --bad: #ff8a80; --warn: #f0c36d; --on-bar: #0d0f13;
    --span-function: #9aa3b3; --op-mark: #f1f3f7; --measured: #d4b5ff; --selection: #ff6b9a;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
header.top { display: flex; align-items: center; gap: 12px; padding: 14px 20px 6px; }
h1 { font-size: 18px; margin: 0; overflow-wrap: anywhere; }
h2 { font-size: 15px; margin: 0 0 10px; }
h3 { font-size: 13px; margin: 14px 0 6px; color: var(--muted); }
.badge { font-weight: 700; font-size: 12px; padding: 2px 8px; border-radius: 10px; color: var(--card); }
.badge.ok { background: var(--ok); } .badge.bad { background: var(--bad); }
.tabs { display: flex; gap: 4px; padding: 0 20px; border-bottom: 1px solid var(--border); flex-wrap: wrap; }
.tabs button { background: none; border: none; border-bottom: 3px solid transparent; color: var(--muted); padding: 8px 12px; font: inherit; cursor: pointer; }
.tabs button[aria-selected="true"] { color: var(--text); border-bottom-color: var(--accent); font-weight: 600; }
button:focus-visible, input:focus-visible, select:focus-visible, canvas:focus-visible, .panel:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
main { padding: 16px 20px 40px; }
.card { background: var(--card); border: 1px solid var(--border); border-radius: 8px; padding: 14px 16px; margin-bottom: 14px; }
.tiles { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 10px; margin-bottom: 14px; }
.tile { background: var(--card); border: 1px solid var(--border); border-radius: 8px; padding: 10px 12px; }
.tile-label { color: var(--muted); font-size: 12px; } .tile-value { font-size: 20px; font-weight: 650; } .tile-detail { color: var(--muted); font-size: 12px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
dl.compact { grid-template-columns: repeat(auto-fill, minmax(150px, max-content) minmax(50px, 1fr)); }
.verdict { font-weight: 600; } .verdict.ok { color: var(--ok); } .verdict.bad { color: var(--bad); }
ul.issues { margin: 0; padding-left: 18px; } .issue.error { color: var(--bad); } .issue.warning { color: var(--warn); }
.issue code { font-size: 12px; }
.note { color: var(--muted); margin: 4px 0 8px; }
.toolbar { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; margin-bottom: 8px; }
.toolbar button, select, input.filter { font: inherit; color: var(--text); background: var(--bg); border: 1px solid var(--border); border-radius: 6px; padding: 4px 10px; }
input.filter { margin-bottom: 8px; min-width: 240px; }
ul.legend { display: flex; gap: 12px; list-style: none; margin: 0; padding: 0; flex-wrap: wrap; color: var(--muted); font-size: 12px; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 3px; margin-right: 4px; vertical-align: -2px; }
.chart-wrap { position: relative; width: 100%; }
canvas { display: block; cursor: grab; }
.tooltip { position: absolute; z-index: 2; pointer-events: none; background: var(--card); color: var(--text); border: 1px solid var(--border); border-radius: 6px; padding: 6px 8px; font-size: 12px; max-width: 260px; box-shadow: 0 2px 8px rgba(0,0,0,.2); overflow-wrap: anywhere; }
.details { min-height: 3.2em; margin-top: 8px; color: var(--muted); overflow-wrap: anywhere; }
.details strong { color: var(--text); }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
caption { text-align: left; color: var(--muted); padding-bottom: 6px; }
th, td { padding: 4px 8px; border-bottom: 1px solid var(--grid); text-align: left; overflow-wrap: anywhere; }
th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
button.cut-string { font: inherit; color: inherit; background: none; border: none; padding: 0; text-align: left; cursor: pointer; text-decoration: underline dotted; overflow-wrap: anywhere; }
.full-string { overflow-wrap: anywhere; }
button.sort { font: inherit; font-weight: 600; background: none; border: none; color: var(--text); cursor: pointer; padding: 0; }
th[aria-sort="ascending"] button.sort::after { content: " ▲"; } th[aria-sort="descending"] button.sort::after { content: " ▼"; }
.state-bad { color: var(--bad); font-weight: 600; } .state-ok { color: var(--ok); }
td.worse { color: var(--bad); } td.better { color: var(--ok); }
table.attribution th { white-space: nowrap; }
table.attribution td.attr-label { max-width: 46em; overflow-wrap: anywhere; }
table.attribution tr.attr-rest td { color: var(--muted); font-style: italic; }
.attr-track { width: 120px; height: 10px; background: rgba(127, 127, 127, 0.15); border-radius: 2px; }
.attr-bar { height: 10px; border-radius: 2px; } .attr-bar.worse { background: var(--bad); } .attr-bar.better { background: var(--ok); }
svg.chart { display: block; max-width: 100%; }
svg .grid { stroke: var(--grid); } svg .axis { fill: var(--muted); font-size: 11px; }
svg .area { opacity: 0.85; } svg .line { fill: none; stroke-width: 2; }
svg .peak { stroke: var(--bad); stroke-dasharray: 4 3; } svg .peak-dot { fill: var(--bad); } svg .peak-label { fill: var(--bad); font-size: 12px; font-weight: 600; }
`;
