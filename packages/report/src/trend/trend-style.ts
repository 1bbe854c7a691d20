/** The trend page's stylesheet: system fonts, light and dark themes from prefers-color-scheme. */
export const trendStyle = `
:root {
  color-scheme: light dark;
  --bg: #f7f7f9; --card: #ffffff; --text: #1d1f24; --muted: #5b6270; --grid: #e3e6eb; --border: #d3d7de;
  --line: #2457c5; --ok: #1b7a3d; --bad: #b3261e; --good: #1b6a7a;
  --baseline: rgba(36, 87, 197, 0.07); --candidate: rgba(214, 140, 0, 0.14); --band: rgba(27, 122, 61, 0.16); --median: #1b7a3d;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #15171c; --card: #1f232b; --text: #e6e8ee; --muted: #a3aab8; --grid: #2e333d; --border: #3a404c;
    --line: #8ab4ff; --ok: #6fd08f; --bad: #ff8a80; --good: #7fd4e0;
    --baseline: rgba(138, 180, 255, 0.08); --candidate: rgba(240, 195, 109, 0.14); --band: rgba(111, 208, 143, 0.18); --median: #6fd08f;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
header { display: flex; align-items: center; gap: 12px; padding: 16px 20px 4px; }
h1 { font-size: 18px; margin: 0; overflow-wrap: anywhere; }
h2 { font-size: 15px; margin: 0 0 4px; overflow-wrap: anywhere; }
h2.section { margin: 18px 0 8px; }
main { padding: 8px 20px 40px; max-width: 1160px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0 0 8px; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.card { background: var(--card); border: 1px solid var(--border); border-radius: 8px; padding: 12px 14px; margin-bottom: 14px; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(540px, 1fr)); gap: 0 14px; }
.detail { color: var(--muted); margin: 0 0 6px; font-size: 13px; overflow-wrap: anywhere; }
.chart { overflow-x: auto; }
.chart svg { display: block; max-width: 100%; height: auto; }
.badge { font-weight: 700; font-size: 12px; padding: 2px 8px; border-radius: 10px; color: var(--card); vertical-align: middle; }
.badge.bad { background: var(--bad); } .badge.ok { background: var(--ok); } .badge.good { background: var(--good); } .badge.none { background: var(--muted); }
.legend { color: var(--muted); font-size: 12px; display: flex; flex-wrap: wrap; align-items: center; gap: 6px; margin: 4px 0 12px; }
.key { display: inline-block; width: 14px; height: 10px; border: 1px solid var(--border); margin-left: 8px; }
.key.baseline { background: var(--baseline); } .key.candidate { background: var(--candidate); } .key.band { background: var(--band); }
.key.flagged { background: var(--bad); border-radius: 50%; width: 10px; }
svg .window-baseline { fill: var(--baseline); } svg .window-candidate { fill: var(--candidate); }
svg .band { fill: var(--band); } svg .median { stroke: var(--median); stroke-dasharray: 5 4; stroke-width: 1.2; }
svg .grid { stroke: var(--grid); stroke-width: 1; }
svg .tick { fill: var(--muted); font-size: 11px; }
svg .line { fill: none; stroke: var(--line); stroke-width: 1.4; opacity: 0.75; }
svg .point { fill: var(--line); } svg .point.older { opacity: 0.6; }
svg .point.untrusted { fill: var(--card); stroke: var(--muted); stroke-width: 1.2; }
svg .point.flagged { fill: var(--bad); stroke: var(--card); stroke-width: 1.2; }
`;
