// The committed WebAssembly module is clang's build of wasm/canonical-decoder.c (the test tools
// install clang and lld), and a decoder reads the layout table it is given, not a copy of its own.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  clangVersion,
  compileDecoder,
  generatedModulePath,
  renderDecoderModule,
} from "../scripts/canonical-decoder-build.js";
import { createCanonicalDecoder } from "./canonical-decoder.js";
import { formatCanonicalFloat } from "./encode-float.js";
import { EVENT_LAYOUTS, type EventLayoutTable } from "./event-layouts.js";

const encoder = new TextEncoder();

/** The kind codes the decoder gives the lines of `text`. */
function kindsOf(layouts: EventLayoutTable, text: string): number[] {
  const decoder = createCanonicalDecoder(layouts);
  if (decoder === undefined) throw new Error("no decoder");
  const bytes = encoder.encode(text);
  decoder.input.set(bytes);
  const count = decoder.decode(bytes.length);
  return Array.from(decoder.lineKinds.subarray(0, count));
}

describe("the canonical decoder", () => {
  it("is embedded as clang builds it from its C source", () => {
    const committed = readFileSync(generatedModulePath, "utf8");
    // Another clang makes other bytes: say so rather than report a stale module.
    const compiler = clangVersion();
    expect(committed, "the module was built by another clang than this machine's").toContain(
      `// Compiler: ${compiler}\n`,
    );
    expect(committed, "stale: run pnpm --filter @cg/schema generate:decoder").toBe(
      renderDecoderModule(compileDecoder(), compiler),
    );
  });

  it("takes its kinds, keys and variants from the layout table it is given", () => {
    const line = '{"kind":"span_end","id":"s1","duration_ns":5}\n';
    const spanEnd = Object.keys(EVENT_LAYOUTS).indexOf("span_end");
    expect(kindsOf(EVENT_LAYOUTS, line)).toEqual([spanEnd]);
    // The same line under a table whose span_end has another key: declined.
    const renamed = {
      ...EVENT_LAYOUTS,
      span_end: {
        ...EVENT_LAYOUTS.span_end,
        fields: EVENT_LAYOUTS.span_end.fields.map((field) =>
          field.key === "duration_ns" ? { ...field, key: "elapsed_ns" } : field,
        ),
      },
    } as EventLayoutTable;
    expect(kindsOf(renamed, line)).toEqual([-1]);
    expect(kindsOf(renamed, line.replace("duration_ns", "elapsed_ns"))).toEqual([spanEnd]);
  });

  it("declines kinds with a string map, and floats in forms its fast path does not take", () => {
    const gradient = (norm: string) =>
      `{"kind":"gradient","event_id":"g1","root":"r","key":"k","state":"present","norm":${norm}}\n`;
    const meta =
      '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"train","timestamp":"2025-01-01T00:00:00Z","capture_step":1,"warmup_steps":0,"device":"cpu","measured_region_device_synchronized":true,"timing_mode":"host","tags":{}}\n';
    const code = Object.keys(EVENT_LAYOUTS).indexOf("gradient");
    const forms = ["1.5", "-0.25", "0", "123456789012345", "1e-7", "1.0E3", "1234567890123456", "01.5", "1."];
    expect(kindsOf(EVENT_LAYOUTS, forms.map(gradient).join("") + meta)).toEqual([
      code,
      code,
      code,
      code,
      -1,
      -1,
      -1,
      -1,
      -1,
      -1,
    ]);
  });

  it("reads an integer of 1 to 15 digits as its value, and declines longer ones and leading zeros", () => {
    // The decoder reads digits eight bytes at a time: every count of digits, each byte that may
    // follow them, and a number at the very end of the input.
    const decoder = createCanonicalDecoder(EVENT_LAYOUTS);
    if (decoder === undefined) throw new Error("no decoder");
    const code = Object.keys(EVENT_LAYOUTS).indexOf("span_end");
    fc.assert(
      fc.property(
        fc.stringMatching(/^[0-9]{1,18}$/),
        // What may follow the digits, as bytes: 0xfa and 0xff (never in UTF-8) carry when 6 is added.
        fc.constantFrom(
          ...["}", ".5}", "e3}", ",}", " }", "a}", "\u00fa}", ":}", "/}"].map((text) => [
            ...encoder.encode(text),
          ]),
          [0xfa, 0x7d],
          [0xff, 0x7d],
        ),
        fc.boolean(),
        (digits, after, last) => {
          const line = [...encoder.encode(`{"kind":"span_end","id":"s","duration_ns":${digits}`), ...after];
          const bytes = Uint8Array.from(last ? line : [...line, 10, ...line, 10]);
          decoder.input.set(bytes);
          const lines = decoder.decode(bytes.length);
          if (last) {
            // No LF: the line is not one the decoder records.
            expect(lines).toBe(0);
            return;
          }
          const wanted =
            after.length === 1 && digits.length <= 15 && (digits.length === 1 || !digits.startsWith("0"));
          expect(decoder.lineKinds[0]).toBe(wanted ? code : -1);
          expect(decoder.lineEnds[0]).toBe(bytes.indexOf(10));
          if (wanted) {
            const durations = decoder.stageColumns[(decoder.firstFields[code] as number) + 1] as Float64Array;
            expect(durations[decoder.lineStageRows[0] as number]).toBe(Number(digits));
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("reads a float as Number() reads its text, or declines it", () => {
    const decoder = createCanonicalDecoder(EVENT_LAYOUTS);
    if (decoder === undefined) throw new Error("no decoder");
    let read = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ noNaN: true, noDefaultInfinity: true }).map(formatCanonicalFloat),
          fc
            .tuple(fc.integer({ min: -1e9, max: 1e9 }), fc.nat(22))
            .map(([digits, scale]) =>
              (digits / 10 ** Math.min(scale, 6)).toFixed(
                Math.min(scale, 15 - String(Math.abs(digits)).length),
              ),
            ),
        ),
        (text) => {
          const bytes = encoder.encode(
            `{"kind":"gradient","event_id":"g","root":"r","key":"k","state":"present","norm":${text}}\n`,
          );
          decoder.input.set(bytes);
          if (decoder.decode(bytes.length) !== 1 || (decoder.lineKinds[0] as number) < 0) return;
          // norm is the gradient's last field, staged in the line's row of its column.
          const code = Object.keys(EVENT_LAYOUTS).indexOf("gradient");
          const norm = decoder.stageColumns[(decoder.firstFields[code] as number) + 4] as Float64Array;
          expect(Object.is(norm[decoder.lineStageRows[0] as number], Number(text))).toBe(true);
          read++;
        },
      ),
      { numRuns: 3000 },
    );
    expect(read).toBeGreaterThan(1000);
  });
});
