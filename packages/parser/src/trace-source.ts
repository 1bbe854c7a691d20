// Turns every accepted input into an async sequence of chunks. Browser-safe: the file-path branch
// loads `node:fs` lazily, so importing this package never pulls Node modules at load time.

/** A Node-style readable or any async iterable of byte or text chunks. */
export type ChunkIterable = AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

/**
 * What the reader accepts: a file path (`string` or `file:` URL), `{ text }` for trace text held in
 * memory, bytes, a web `ReadableStream`, or a Node readable stream / any (async) iterable of chunks.
 */
export type TraceSource =
  | string
  | URL
  | { readonly text: string }
  | Uint8Array
  | ArrayBuffer
  | ReadableStream<Uint8Array | string>
  | ChunkIterable;

/** Default label of a source in messages (`from {path}`). */
export function sourceLabel(source: TraceSource): string {
  if (typeof source === "string") return source;
  if (source instanceof URL)
    return source.protocol === "file:" ? decodeURIComponent(source.pathname) : source.href;
  if (isTextSource(source)) return "<text>";
  if (source instanceof Uint8Array || source instanceof ArrayBuffer) return "<bytes>";
  const path = (source as { path?: unknown }).path;
  if (typeof path === "string") return path;
  return "<stream>";
}

export function isTextSource(source: unknown): source is { readonly text: string } {
  return (
    typeof source === "object" &&
    source !== null &&
    !(source instanceof Uint8Array) &&
    typeof (source as { text?: unknown }).text === "string"
  );
}

/**
 * File reads go into one reused 1 MiB buffer. Consumers process each chunk before asking for the
 * next one and copy whatever they keep (the line splitter does), so nothing aliases the buffer.
 * Canonical lines are decoded from the bytes directly; other text is decoded in slices of at most
 * 64 KiB (see LineProcessor), so no chunk becomes a string in V8's large-object space. Fewer,
 * larger reads cut the per-read cost (a thread-pool round trip and a promise each), which at 64 KiB
 * was a sixth of a canonical read's CPU time.
 */
export const READ_CHUNK_BYTES = 1 << 20;

async function* readFileChunks(path: string | URL): AsyncGenerator<Uint8Array> {
  const fs = await import("node:fs");
  const handle = await fs.promises.open(path, "r");
  try {
    const buffer = new Uint8Array(READ_CHUNK_BYTES);
    while (true) {
      const { bytesRead } = await handle.read(buffer, 0, READ_CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      yield bytesRead === READ_CHUNK_BYTES ? buffer : buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

async function* readWebStream(
  stream: ReadableStream<Uint8Array | string>,
): AsyncGenerator<Uint8Array | string> {
  const reader = stream.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** The chunks of a non-text source, in order. Text sources are handled synchronously by the caller. */
export function sourceChunks(source: Exclude<TraceSource, { readonly text: string }>): ChunkIterable {
  if (typeof source === "string" || source instanceof URL) return readFileChunks(source);
  if (source instanceof Uint8Array) return [source];
  if (source instanceof ArrayBuffer) return [new Uint8Array(source)];
  if (typeof (source as ReadableStream).getReader === "function") {
    return readWebStream(source as ReadableStream<Uint8Array | string>);
  }
  if (
    typeof (source as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function" ||
    typeof (source as Iterable<unknown>)[Symbol.iterator] === "function"
  ) {
    return source as ChunkIterable;
  }
  throw new TypeError(
    "trace source must be a file path, URL, { text }, Uint8Array, ReadableStream or (async) iterable of chunks",
  );
}
