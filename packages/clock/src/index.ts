export { type ClockOrigin, defaultMonotonicClock, MonotonicClock, monotonicNow } from "./monotonic-clock.js";
export { newRunId, unixEpochNs } from "./unix-epoch.js";
export { utcTimestamp } from "./utc-timestamp.js";
