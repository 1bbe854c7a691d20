// Child process for the kill and exit tests. Usage:
//   capture-child <path> <durability> <mode> <events>
// mode `pause`: record <events> events (nested spans left open), print "READY <lines>", then wait to be killed.
// mode `stream`: record events until killed, printing "GO" once the first thousand are recorded.
// Every mode ends by itself after a bounded time or volume, so a child that outlives its test (its
// parent killed first) can never fill a disk.
// mode `exit`: record <events> events and exit without finish (tests the exit flush).
import { ProfileRun, TraceSession } from "../src/index.js";

const [path, durability, mode, eventsText] = process.argv.slice(2) as [
  string,
  "buffered" | "line",
  string,
  string,
];
const events = Number(eventsText);
const session = TraceSession.open(path, ProfileRun.training("child::update", 1, "cpu"), { durability });
let lines = 2;
const measured = session.beginMeasurement("child/update");
lines++;
const forward = session.beginStepSpan("child/update/forward", "forward");
lines++;

function recordOne(index: number): void {
  if (index % 10 === 0) {
    session.beginSpan(`op-${index}`, "op").end();
    lines += 2;
  } else {
    session.recordOp(forward, {
      opName: `matmul-${index}`,
      inputs: ["a", "b"],
      output: `t${index}`,
      shape: [32, 32],
      dtype: "f32",
      device: "cpu",
      durationNs: index,
    });
    lines++;
  }
}

const MAX_STREAM_EVENTS = 2_000_000;
const MAX_LIFETIME_MS = 60_000;
const startedAt = Date.now();

if (mode === "stream") {
  let index = 0;
  for (; index < 1000; index++) recordOne(index);
  process.stdout.write("GO\n");
  while (index < MAX_STREAM_EVENTS && (index % 1000 !== 0 || Date.now() - startedAt < MAX_LIFETIME_MS)) {
    recordOne(index++);
  }
  process.exit(4);
} else {
  for (let index = 0; index < events; index++) recordOne(index);
  if (mode === "exit") {
    void measured;
    process.stdout.write(`DONE ${lines}\n`);
    process.exit(0);
  }
  process.stdout.write(`READY ${lines}\n`);
  setTimeout(() => process.exit(4), MAX_LIFETIME_MS);
}
