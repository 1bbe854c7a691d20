// Turns every accepted input into an async sequence of chunks. Browser-safe: file paths are read by
// a reader that only the Node root entry installs (src/node/file-chunks.ts), so the core names no
// Node module.

/** A Node-style readable or any async iterable of byte or text chunks. */
export type ChunkIterable = AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

/**
 * What the reader accepts: a file path (`string` or `file:` URL; only the Node entry `@cg/parser`
 * reads those), `{ text }` for trace text held in memory, bytes, a web `ReadableStream`, or a Node
 * readable stream / any (async) iterable of chunks.
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

/** Reads a file path as chunks; installed by the Node root entry (`@cg/parser`). */
export type FileChunkReader = (path: string | URL) => AsyncIterable<Uint8Array>;

let fileChunkReader: FileChunkReader | undefined;

/**
 * Lets file paths be read. The root entry calls this once when it loads, with its `node:fs`
 * reader; `@cg/parser/core` alone has none, and a path given to it is refused with a TypeError.
 * @internal
 */
export function installFileChunkReader(reader: FileChunkReader): void {
  fileChunkReader = reader;
}

function readFileChunks(path: string | URL): AsyncIterable<Uint8Array> {
  if (fileChunkReader === undefined) {
    throw new TypeError(
      'a file path is read by the Node entry "@cg/parser"; "@cg/parser/core" reads { text }, a Uint8Array, ' +
        "an ArrayBuffer, a ReadableStream or an (async) iterable of chunks",
    );
  }
  return fileChunkReader(path);
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
