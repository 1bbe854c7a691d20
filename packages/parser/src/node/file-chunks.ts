// Node-only: reads a trace file for the root entry, which installs this reader into the core's
// source handling. `@cg/parser/core` never imports this module, so it stays free of `node:` imports.
import { open } from "node:fs/promises";

/**
 * File reads go into one reused 1 MiB buffer. Consumers process each chunk before asking for the
 * next one and copy whatever they keep (the line splitter does), so nothing aliases the buffer.
 * Canonical lines are decoded from the bytes directly; other text is decoded in slices of at most
 * 64 KiB (see LineProcessor), so no chunk becomes a string in V8's large-object space. Fewer,
 * larger reads cut the per-read cost (a thread-pool round trip and a promise each), which at 64 KiB
 * was a sixth of a canonical read's CPU time.
 */
export const READ_CHUNK_BYTES = 1 << 20;

/** The bytes of the file at `path`, in reads of at most {@link READ_CHUNK_BYTES}. */
export async function* readFileChunks(path: string | URL): AsyncGenerator<Uint8Array> {
  const handle = await open(path, "r");
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
