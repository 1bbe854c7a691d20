// The file reader reads ahead into a second buffer: a chunk the consumer holds must stay as read
// until it asks for the next one, chunks must come in file order, and stopping early must leave
// no read behind.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { READ_CHUNK_BYTES, readFileChunks } from "./file-chunks.js";

/** Byte equality without the deep comparison's cost per element. */
function same(left: Uint8Array, right: Uint8Array): boolean {
  return Buffer.from(left.buffer, left.byteOffset, left.length).equals(right);
}

const directory = mkdtempSync(join(tmpdir(), "cg-file-chunks-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A file of `length` bytes that differ from chunk to chunk. */
function writeBytes(name: string, length: number): { path: string; bytes: Uint8Array } {
  const bytes = new Uint8Array(length);
  let state = 0x9e3779b9;
  for (let index = 0; index < length; index++) {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    bytes[index] = state >>> 24;
  }
  const path = join(directory, name);
  writeFileSync(path, bytes);
  return { path, bytes };
}

describe("readFileChunks", () => {
  it.each([
    ["shorter than one chunk", 1000],
    ["of whole chunks", 2 * READ_CHUNK_BYTES],
    ["of chunks and a tail", 3 * READ_CHUNK_BYTES + 12_345],
  ])("gives a file %s in order, each chunk unchanged while it is held", async (_title, length) => {
    const { path, bytes } = writeBytes(`file-${length}`, length);
    const received = new Uint8Array(length);
    let at = 0;
    for await (const chunk of readFileChunks(path)) {
      expect(chunk.length).toBeLessThanOrEqual(READ_CHUNK_BYTES);
      const first = chunk.slice();
      // The read ahead has time to finish while the chunk is held: it must go elsewhere.
      await sleep(20);
      expect(same(chunk, first)).toBe(true);
      received.set(chunk, at);
      at += chunk.length;
    }
    expect(at).toBe(length);
    expect(same(received, bytes)).toBe(true);
  });

  it("gives nothing for an empty file", async () => {
    const { path } = writeBytes("empty", 0);
    const chunks: Uint8Array[] = [];
    for await (const chunk of readFileChunks(path)) chunks.push(chunk);
    expect(chunks).toEqual([]);
  });

  it("finishes the read under way when the consumer stops early", async () => {
    const { path, bytes } = writeBytes("early", 2 * READ_CHUNK_BYTES + 7);
    const chunks = readFileChunks(path);
    const first = await chunks.next();
    expect(same(first.value as Uint8Array, bytes.subarray(0, READ_CHUNK_BYTES))).toBe(true);
    await expect(chunks.return(undefined)).resolves.toEqual({ done: true, value: undefined });
    // The file can be read again from its start.
    const again = await readFileChunks(path).next();
    expect(same(again.value as Uint8Array, bytes.subarray(0, READ_CHUNK_BYTES))).toBe(true);
  });
});
