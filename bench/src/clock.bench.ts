// One MonotonicClock.now() against the raw sources it could be built on.
import { MonotonicClock } from "@cg/clock";
import { compare } from "./harness.js";

export default async function clockBench(): Promise<void> {
  const clock = new MonotonicClock();
  let sink = 0;
  await compare(
    "monotonic read",
    { name: "MonotonicClock.now()", fn: () => (sink += clock.now()) },
    { name: "process.hrtime.bigint()", fn: () => (sink += Number(process.hrtime.bigint() & 1n)) },
    { mode: "cost", target: 2 },
  );
  await compare(
    "monotonic read",
    { name: "MonotonicClock.now()", fn: () => (sink += clock.now()) },
    { name: "performance.now()", fn: () => (sink += performance.now()) },
    { mode: "cost" },
  );
  if (sink === -1) console.log(sink);
}
