// Child process for the signal and path tests. Usage:
//   signal-child record <path> <durability> <handler: none|SIGINT|SIGTERM> <batch>
//     records ops in batches of <batch>, letting the event loop turn after each batch (where a
//     signal is delivered); prints "GO" after the first batch. With a handler for that signal
//     the handler prints "HANDLED", the loop stops at the batch end and the session finishes.
//     Ends by itself after a bounded time, so a child outliving its test cannot fill a disk.
//   signal-child try-open <path>
//     opens a session on <path> and prints "OPENED", or "ERROR <name> <code> <message>"; then,
//     when opened, waits to be killed.
import { ProfileRun, TraceSession } from "../src/index.js";

const [mode, path = "", durability = "buffered", handler = "none", batchText = "1000"] =
  process.argv.slice(2);
const run = ProfileRun.training("child::update", 1, "cpu");
const MAX_LIFETIME_MS = 60_000;
const MAX_OPS = 1_000_000;
setTimeout(() => process.exit(4), MAX_LIFETIME_MS).unref();

if (mode === "try-open") {
  try {
    TraceSession.open(path, run);
    process.stdout.write("OPENED\n");
    setTimeout(() => process.exit(0), MAX_LIFETIME_MS);
  } catch (error) {
    const { name, code, systemCode, message } = error as Record<string, string | undefined>;
    process.stdout.write(`ERROR ${name} ${code ?? systemCode} ${message}\n`);
    process.exitCode = 3;
  }
} else if (mode === "record") {
  const session = TraceSession.open(path, run, { durability: durability as "buffered" | "line" });
  const batch = Number(batchText);
  const forward = session.beginStepSpan("child/forward", "forward");
  let stop = false;
  if (handler !== "none") {
    process.on(handler, () => {
      process.stdout.write("HANDLED\n");
      stop = true;
    });
  }
  let index = 0;
  const recordBatch = (): void => {
    for (const end = index + batch; index < end; index++) {
      session.recordOp(forward, {
        opName: `matmul-${index}`,
        inputs: ["a", "b"],
        output: `t${index}`,
        shape: [32, index % 64],
        dtype: "f32",
        device: "cpu",
        durationNs: index,
      });
    }
    if (index === batch) process.stdout.write("GO\n");
    if (index >= MAX_OPS) process.exit(4);
    if (stop) {
      forward.end();
      session.finish();
      process.stdout.write(`FINISHED ${index}\n`);
      return;
    }
    setImmediate(recordBatch);
  };
  recordBatch();
} else {
  throw new Error(`unknown mode ${mode}`);
}
