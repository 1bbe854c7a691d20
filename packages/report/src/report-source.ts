import type { TraceSource } from "@cg/parser";

/**
 * A trace the streamed report reads twice: a file path or `file:` URL, bytes, `{ text }`, or a
 * function that opens a fresh source each time it is called (for a stream with progress, say).
 */
export type ReportSource =
  | string
  | URL
  | Uint8Array
  | ArrayBuffer
  | { readonly text: string }
  | (() => TraceSource);

/** A function giving a fresh source per read; refuses a one-shot stream, which cannot be read twice. */
export function sourceReader(source: ReportSource): () => TraceSource {
  if (typeof source === "function") return source;
  if (
    typeof source === "string" ||
    source instanceof URL ||
    source instanceof Uint8Array ||
    source instanceof ArrayBuffer ||
    (typeof source === "object" && source !== null && typeof (source as { text?: unknown }).text === "string")
  ) {
    return () => source;
  }
  throw new TypeError(
    "a streamed report reads its trace twice: pass a file path, URL, bytes, { text }, or a function that opens a fresh stream",
  );
}
