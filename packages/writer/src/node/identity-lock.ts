// The trace path's lock (`path-lock.ts`) covers one name of the file; symbolic links and `a/../x`
// spellings resolve to it, but a hard link is a second name of the same file and a bind mount a
// second path to it. This lock is keyed on the file itself — device and inode of the open file — so
// a second session through any alias fails before it truncates anything. Its lock files live in a
// private per-user directory under the system temp directory (no name of the trace can be shared,
// since the aliases may sit in different directories); processes that agree on the temp directory
// and the user see each other.
import { fstatSync, lstatSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TraceSessionError } from "../trace-session-error.js";
import { describeOwner, ownerText, takeLockFile } from "./lock-file.js";
import type { PathLock } from "./path-lock.js";

function userId(): string {
  return typeof process.getuid === "function" ? String(process.getuid()) : "user";
}

/** The private directory of identity locks, created on first use; refused when another user could write it. */
function lockDirectory(): string {
  const directory = join(tmpdir(), `cg-writer-locks-${userId()}`);
  try {
    mkdirSync(directory, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const stats = lstatSync(directory);
  const mine = typeof process.getuid !== "function" || stats.uid === process.getuid();
  if (!stats.isDirectory() || !mine || (stats.mode & 0o022) !== 0) {
    throw new Error(`${directory} is not a private directory of this user; remove it`);
  }
  return directory;
}

/**
 * Takes the regular file open on `fd` (written through `path`) for one session, in this process and
 * across processes. Throws TraceSessionError `path_in_use` naming both paths when a live session writes
 * the same file under another name.
 */
export function lockTraceIdentity(fd: number, path: string): PathLock {
  const stats = fstatSync(fd, { bigint: true });
  // A device (/dev/null, /dev/full, a terminal) is no trace file: writers there cannot corrupt one.
  if (!stats.isFile()) return { release() {} };
  const lockPath = join(lockDirectory(), `${stats.dev}-${stats.ino}.lock`);
  const taken = takeLockFile(lockPath, ownerText(path));
  if (typeof taken !== "function") {
    const other = taken.kind === "owner" ? taken.owner.path : undefined;
    const detail =
      taken.kind === "owner"
        ? describeOwner(taken.owner)
        : taken.kind === "unreadable"
          ? `an unknown owner (unreadable lock file ${lockPath}; remove it if no capture runs)`
          : `another process (its lock file ${lockPath} keeps changing hands)`;
    throw new TraceSessionError({
      message: `${path} is the same file as ${other ?? "a trace"} (device ${stats.dev}, inode ${stats.ino}: a hard link or another alias), which is already being written by ${detail}; finish that session first`,
      code: "path_in_use",
    });
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      taken();
    },
  };
}
