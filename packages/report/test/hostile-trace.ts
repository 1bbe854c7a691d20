// A trace whose every free-text field carries markup and script-breaking payloads. Each payload
// sets window.__pwned if it ever runs.
import { parseTraceText, type TraceDocument } from "@cg/parser";
import { ProfileRun, TraceSessionCore } from "@cg/writer";

export const payloads = {
  image: `<img src=x onerror="window.__pwned=1">`,
  script: `</script><script>window.__pwned=1</script>`,
  svg: `<svg onload="window.__pwned=1"><!--`,
  separators: `line\u2028separator\u2029<b>bold</b>&amp;`,
} as const;

export function hostileTrace(): TraceDocument {
  let time = 0;
  const clock = {
    now() {
      time += 1000;
      return time;
    },
  };
  const run = ProfileRun.training(`train ${payloads.script}`, 1, `cuda:0${payloads.image}`)
    .tag(payloads.image, payloads.script)
    .tag("note", payloads.separators)
    .fields();
  const session = TraceSessionCore.inMemory(run, {
    clock,
    runId: payloads.svg,
    timestamp: "2025-08-04T18:00:00.000Z",
  });
  const measured = session.beginMeasurement(payloads.image);
  const forward = session.beginStepSpan(payloads.script, "forward");
  session.recordOp(forward, {
    opName: payloads.svg,
    output: payloads.image,
    shape: [4],
    dtype: "f32",
    device: "cuda:0",
    durationNs: 400,
  });
  session.recordMemoryAlloc(forward, {
    tensorId: payloads.script,
    device: "cuda:0",
    bytes: 4096,
    dtype: "f32",
    category: "activation",
    opName: payloads.image,
  });
  forward.end();
  const backward = session.beginStepSpan(payloads.separators, "backward");
  session.recordGradient(payloads.image, payloads.script, "non_finite");
  backward.end();
  measured.end();
  session.finish();
  return parseTraceText(session.sink.text());
}
