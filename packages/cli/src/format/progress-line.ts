import { escapeControl } from "./escape-control.js";
import { formatBytesShort } from "./units.js";

/**
 * One progress line for a terminal: phase, share done, bytes, rate and the time left at that
 * rate, e.g. `reading big.jsonl: 45% (450.00 MiB of 1.00 GiB) at 210.5 MiB/s, about 3 s left`.
 * Pure (the caller passes the elapsed time), so it is tested without a clock.
 */
export function progressLine(
  phase: string,
  path: string,
  done: number,
  total: number,
  elapsedMs: number,
): string {
  const percent = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 100;
  let line = `${phase} ${escapeControl(path)}: ${percent}% (${formatBytesShort(done)} of ${formatBytesShort(total)})`;
  if (elapsedMs >= 250 && done > 0) {
    const perSecond = (done / elapsedMs) * 1000;
    const left = Math.max(0, (total - done) / perSecond);
    line += ` at ${formatBytesShort(Math.round(perSecond))}/s, ${left < 1 ? "under 1 s" : `about ${formatSeconds(left)}`} left`;
  }
  return line;
}

function formatSeconds(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}
