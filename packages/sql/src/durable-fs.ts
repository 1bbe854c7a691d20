// What makes a written file survive a power cut: its bytes flushed (fsync), and the folder that
// names it flushed too, or the name may be lost although the bytes are on disk.
import { open, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/** Flushes a file's bytes, or a folder's entries, to the disk. */
export async function syncPath(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes `text` to `path` through a flushed temporary file and a rename: old or new, never half. */
export async function writeFileAtomic(path: string, text: string, tempSuffix: string): Promise<void> {
  const temp = `${path}.${tempSuffix}`;
  await writeFile(temp, text, { flush: true });
  await syncPath(temp);
  await rename(temp, path);
  await syncPath(dirname(path));
}
