import * as nodeFs from "node:fs";
import { basename, dirname, join } from "node:path";
import { cleanupOnInterrupt } from "./interrupt-cleanup.js";

/** The file-system calls the writers use; tests inject faults (short writes, ENOSPC) through it. */
export interface WriteFs {
  openSync: typeof nodeFs.openSync;
  writeSync: (descriptor: number, buffer: Uint8Array, offset: number, length: number) => number;
  fsyncSync: typeof nodeFs.fsyncSync;
  closeSync: typeof nodeFs.closeSync;
  renameSync: typeof nodeFs.renameSync;
  rmSync: typeof nodeFs.rmSync;
  chmodSync: typeof nodeFs.chmodSync;
}

export const realFs: WriteFs = nodeFs;

/** A temporary path beside `target`, so the final rename stays on one file system. */
export function temporaryPathFor(target: string): string {
  const suffix = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  return join(dirname(target), `.${basename(target)}.${suffix}.tmp`);
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes every byte of `bytes`: `write(2)` may write fewer bytes than asked (a full disk, a pipe, a
 * signal), so a single call is never taken as success. A non-blocking descriptor (a pipe set up by
 * a parent) that reports EAGAIN is retried after a millisecond.
 */
export function writeAll(
  descriptor: number,
  bytes: Uint8Array,
  fs: Pick<WriteFs, "writeSync"> = realFs,
): void {
  let offset = 0;
  while (offset < bytes.length) {
    let written: number;
    try {
      written = fs.writeSync(descriptor, bytes, offset, bytes.length - offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      Atomics.wait(sleepCell, 0, 0, 1);
      continue;
    }
    if (written <= 0) {
      throw Object.assign(new Error("write returned no progress"), { code: "EIO", syscall: "write" });
    }
    offset += written;
  }
}

/** Bytes of the one output buffer a writer encodes into. */
const WRITE_BUFFER_BYTES = 1 << 18;

/**
 * Encodes appended text into one reused 256 KiB buffer and writes it out, completely, whenever the
 * next text might not fit. A fresh buffer per block (a 64 KiB `Buffer.from` each time) made a
 * conversion that writes 800 MB allocate and drop thousands of blocks outside the V8 heap.
 */
export function bufferedWriter(descriptor: number, fs: Pick<WriteFs, "writeSync"> = realFs) {
  const buffer = Buffer.allocUnsafe(WRITE_BUFFER_BYTES);
  let used = 0;
  const flush = (): void => {
    if (used === 0) return;
    writeAll(descriptor, buffer.subarray(0, used), fs);
    used = 0;
  };
  const write = (text: string): void => {
    // A UTF-16 unit is at most 3 UTF-8 bytes (a surrogate pair, two units, is 4).
    if (text.length * 3 > WRITE_BUFFER_BYTES - used) flush();
    if (text.length * 3 > WRITE_BUFFER_BYTES) {
      writeAll(descriptor, Buffer.from(text, "utf8"), fs);
      return;
    }
    used += buffer.write(text, used, "utf8");
  };
  return { write, flush };
}

export interface AtomicWriteOptions {
  /** Permission bits of the new file (an existing file's mode is kept by the caller passing it). */
  mode?: number;
  fs?: WriteFs;
}

/**
 * Writes a file atomically: readers see the old file or the complete new one, never a partial
 * one. `produce` receives a function that appends text. Every byte is written, the data is
 * flushed to disk (fsync) before the rename, and on any failure (a full disk included) or on
 * SIGINT/SIGTERM the temp file is removed and the old file is left as it was.
 */
export async function writeFileAtomic<T>(
  target: string,
  produce: (write: (text: string) => void) => T | Promise<T>,
  options: AtomicWriteOptions = {},
): Promise<T> {
  const fs = options.fs ?? realFs;
  const temporary = temporaryPathFor(target);
  const descriptor = fs.openSync(temporary, "wx", options.mode ?? 0o666);
  let open = true;
  const close = (): void => {
    if (!open) return;
    open = false;
    fs.closeSync(descriptor);
  };
  const release = cleanupOnInterrupt(() => {
    try {
      close();
    } finally {
      fs.rmSync(temporary, { force: true });
    }
  });
  try {
    const writer = bufferedWriter(descriptor, fs);
    const result = await produce(writer.write);
    writer.flush();
    fs.fsyncSync(descriptor);
    close();
    if (options.mode !== undefined) fs.chmodSync(temporary, options.mode);
    fs.renameSync(temporary, target);
    return result;
  } catch (error) {
    try {
      close();
    } catch {
      // Already closed, or the close failed too: the first error is the one to report.
    }
    fs.rmSync(temporary, { force: true });
    throw error;
  } finally {
    release();
  }
}

/** Atomic write of a complete string. */
export async function writeTextFileAtomic(
  target: string,
  text: string,
  options: AtomicWriteOptions = {},
): Promise<void> {
  await writeFileAtomic(target, (write) => write(text), options);
}
