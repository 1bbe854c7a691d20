import { findHrtime, findPerformance, processId } from "./time-sources.js";

interface Calibration {
  /** Unix time in ns at the calibration instant. */
  epochNs: bigint;
  /** Monotonic reading in ns at the same instant. */
  monotonicNs: bigint;
  read: () => bigint;
}

let calibration: Calibration | undefined;

function monotonicReader(): () => bigint {
  const hrtime = findHrtime();
  if (hrtime) return hrtime;
  const performance = findPerformance();
  return () => BigInt(Math.floor(performance.now() * 1_000_000));
}

/**
 * Pairs the wall clock with the monotonic clock once. `Date.now()` only has millisecond resolution, so we
 * wait (at most ~1 ms, once per process) for it to tick: right after a tick the wall clock is at an exact
 * millisecond boundary, which pins the pairing to within the loop's granularity (well under 1 µs).
 */
function calibrate(): Calibration {
  const read = monotonicReader();
  const first = Date.now();
  const deadline = read() + 2_000_000n;
  let wallMs = first;
  let monotonicNs = read();
  while (wallMs === first && monotonicNs < deadline) {
    wallMs = Date.now();
    monotonicNs = read();
  }
  return { epochNs: BigInt(wallMs) * 1_000_000n, monotonicNs, read };
}

/**
 * Current Unix time in exact integer nanoseconds. The wall clock is sampled once (see `calibrate`) and then
 * advanced by the monotonic clock, so values never decrease and have 1 ns resolution under
 * `process.hrtime`. Absolute accuracy is that of the system clock at calibration (plus under 1 µs);
 * later wall-clock adjustments (NTP steps) are deliberately not followed.
 */
export function unixEpochNs(): bigint {
  calibration ??= calibrate();
  return calibration.epochNs + (calibration.read() - calibration.monotonicNs);
}

/** A run id `run-<pid>-<unix epoch ns>` (spec §14); pid is 0 where there is no process (browsers). */
export function newRunId(): string {
  return `run-${processId()}-${unixEpochNs()}`;
}
