// One export at a time per dataset: each removes what the manifest does not name, which would
// include the files of another export still running. A lock file held by a process that is gone
// (killed) is taken over.

import { readFile, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { SqlError } from "./sql-error.js";

export const LOCK_FILE = "_cg_export.lock";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes the dataset's export lock; the returned function gives it back. */
export async function takeExportLock(root: string): Promise<() => Promise<void>> {
  const path = join(root, LOCK_FILE);
  const owner = JSON.stringify({ pid: process.pid, host: hostname() });
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(path, owner, { flag: "wx" });
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = await readFile(path, "utf8")
      .then((text) => JSON.parse(text) as { pid?: unknown; host?: unknown })
      .catch(() => ({}) as { pid?: unknown; host?: unknown });
    const gone = holder.host === hostname() && typeof holder.pid === "number" && !alive(holder.pid);
    if (!gone || attempt > 0) {
      throw new SqlError({
        message: `${root}: another export (${typeof holder.pid === "number" ? `pid ${holder.pid}` : "unknown process"}) is writing this dataset; if none is, remove ${path}`,
        code: "export_failed",
        file: path,
      });
    }
    await rm(path, { force: true });
  }
}
