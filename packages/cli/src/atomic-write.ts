import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** A temporary path beside `target`, so the final rename stays on one file system. */
export function temporaryPathFor(target: string): string {
  const suffix = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  return join(dirname(target), `.${basename(target)}.${suffix}.tmp`);
}

/**
 * Writes a file atomically: readers see the old file or the complete new one, never a partial
 * one. `produce` receives a function that appends text; the temp file is removed on failure.
 */
export async function writeFileAtomic<T>(
  target: string,
  produce: (write: (text: string) => void) => T | Promise<T>,
): Promise<T> {
  const temporary = temporaryPathFor(target);
  const descriptor = openSync(temporary, "w");
  let pending: string[] = [];
  let pendingLength = 0;
  const flush = (): void => {
    if (pendingLength === 0) return;
    writeSync(descriptor, pending.join(""));
    pending = [];
    pendingLength = 0;
  };
  try {
    const result = await produce((text) => {
      pending.push(text);
      pendingLength += text.length;
      if (pendingLength >= 1 << 16) flush();
    });
    flush();
    fsyncSync(descriptor);
    closeSync(descriptor);
    renameSync(temporary, target);
    return result;
  } catch (error) {
    try {
      closeSync(descriptor);
    } catch {
      // Already closed.
    }
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** Atomic write of a complete string. */
export async function writeTextFileAtomic(target: string, text: string): Promise<void> {
  await writeFileAtomic(target, (write) => write(text));
}
