// Shared builders for the conformance tests: canonical meta lines, tiny traces and error capture.
import { parseTraceText, readTraceEvents, TraceParseError } from "@cg/parser";

export const META =
  '{"kind":"meta","schema":"candle-graph/trace/6","run_id":"r","correlation_id":"c","entrypoint":"e","phase":"infer","timestamp":"2025-01-01T00:00:00.000Z","capture_step":1,"warmup_steps":0,"device":"cpu","measured_region_device_synchronized":false,"timing_mode":"host","tags":{}}';

export const ROOT_START =
  '{"kind":"span_start","id":"s1","name":"root","start_ns":0,"span_kind":"function","measured":true}';
export const ROOT_END = '{"kind":"span_end","id":"s1","duration_ns":100}';

export const encoder = new TextEncoder();

/** Joins lines with LF and a trailing LF. */
export function jsonl(...lines: string[]): string {
  return `${lines.join("\n")}\n`;
}

export function bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export interface CapturedError {
  code: string;
  stage: string;
  line: number | undefined;
  index: number | undefined;
  message: string;
}

/** Parses synchronously and returns the error, failing the test if the input was accepted. */
export function parseError(
  input: string | Uint8Array,
  options: Parameters<typeof parseTraceText>[1] = {},
): CapturedError {
  try {
    parseTraceText(input, options);
  } catch (error) {
    if (!TraceParseError.isInstance(error)) throw error;
    const parseErr = error as TraceParseError;
    return {
      code: parseErr.code,
      stage: parseErr.stage,
      line: parseErr.line,
      index: parseErr.index,
      message: parseErr.message,
    };
  }
  throw new Error("expected the input to be rejected, but it was accepted");
}

/** Collects all events from readTraceEvents, returning the events seen and the error (if any). */
export async function readAll(
  source: Parameters<typeof readTraceEvents>[0],
  options: Parameters<typeof readTraceEvents>[1] = {},
): Promise<{ events: { kind: string; line: number; index: number }[]; error: TraceParseError | undefined }> {
  const events: { kind: string; line: number; index: number }[] = [];
  try {
    for await (const record of readTraceEvents(source, options)) {
      events.push({ kind: record.event.kind, line: record.line, index: record.index });
    }
  } catch (error) {
    if (TraceParseError.isInstance(error)) return { events, error: error as TraceParseError };
    throw error;
  }
  return { events, error: undefined };
}

/** A trace that is just meta + one closed measured root + the given body lines. */
export function withBody(...body: string[]): string {
  return jsonl(META, ROOT_START, ...body, ROOT_END);
}
