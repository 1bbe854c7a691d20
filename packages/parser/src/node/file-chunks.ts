// Node-only: reads a trace file for the root entry, which installs this reader into the core's
// source handling. `@cg/parser/core` never imports this module, so it stays free of `node:` imports.
import { open } from "node:fs/promises";

/**
 * File reads go into two reused 1 MiB buffers, in turn: the next read is under way while the
 * consumer works on the chunk it was given (on a loaded machine a read waits for a thread-pool
 * thread to be scheduled; ahead of time, that wait overlaps the decoding instead of stalling it).
 * Consumers process each chunk before asking for the next one and copy whatever they keep (the
 * line splitter does), so the buffer a read goes into is never one the consumer still reads.
 * Canonical lines are decoded from the bytes directly; other text is decoded in slices of at most
 * 64 KiB (see LineProcessor), so no chunk becomes a string in V8's large-object space. Fewer,
 * larger reads cut the per-read cost (a thread-pool round trip and a promise each), which at 64 KiB
 * was a sixth of a canonical read's CPU time.
 */
export const READ_CHUNK_BYTES = 1 << 20;

/** The bytes of the file at `path`, in reads of at most {@link READ_CHUNK_BYTES}. */
export async function* readFileChunks(path: string | URL): AsyncGenerator<Uint8Array> {
  const handle = await open(path, "r");
  let filled = new Uint8Array(READ_CHUNK_BYTES);
  let spare = new Uint8Array(READ_CHUNK_BYTES);
  // One read at a time, each from where the last ended.
  let reading: Promise<{ bytesRead: number }> | undefined = handle.read(filled, 0, READ_CHUNK_BYTES, null);
  try {
    while (reading !== undefined) {
      const { bytesRead } = await reading;
      reading = undefined;
      if (bytesRead === 0) break;
      const chunk = filled;
      filled = spare;
      spare = chunk;
      reading = handle.read(filled, 0, READ_CHUNK_BYTES, null);
      yield bytesRead === READ_CHUNK_BYTES ? chunk : chunk.subarray(0, bytesRead);
    }
  } finally {
    // A consumer that stopped early leaves a read under way: it ends before the file is closed.
    await reading?.catch(() => undefined);
    await handle.close();
  }
}
