// The lock files behind `path-lock.ts` and `identity-lock.ts`: a file created atomically (written
// aside, then hard-linked into place, so it is never seen half written) that names its owner: pid,
// the process start time and the host. A lock is only ever broken when its owner is provably gone —
// no such pid, or the pid now belongs to a process started at another time (pid reuse) — never
// because of its age: a capture that runs a synchronous loop for an hour keeps its lock. A lock from
// another host, or one that cannot be read, is reported, not broken, and the error names the file.
// (Time-based lock libraries such as proper-lockfile refresh an mtime from a timer, which a busy
// synchronous capture loop starves until the lock looks stale to another process.)
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";

/** Who holds a lock; `path` is the trace path the owner opened (identity locks only). */
export interface LockOwner {
  pid: number;
  start: string;
  host: string;
  path?: string | undefined;
}

/** The start time of `pid` in clock ticks since boot (Linux), or "" where it cannot be read. */
function processStart(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    // Field 22; the command name (field 2) may hold spaces and parentheses, so count from its end.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? "";
  } catch {
    return "";
  }
}

const self: LockOwner = { pid: process.pid, start: processStart(process.pid), host: hostname() };

/** This process as a lock owner, writing `path` when given. */
export function ownerText(path?: string): string {
  return JSON.stringify(path === undefined ? self : { ...self, path });
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(text) as Partial<LockOwner>;
    return Number.isSafeInteger(owner.pid) &&
      typeof owner.start === "string" &&
      typeof owner.host === "string" &&
      (owner.path === undefined || typeof owner.path === "string")
      ? (owner as LockOwner)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the owner may still be running (anything that cannot be checked counts as running). */
function isAlive(owner: LockOwner): boolean {
  if (owner.host !== self.host) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
  const start = processStart(owner.pid);
  return start === "" || owner.start === "" || start === owner.start;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Who holds a lock, in words: "another trace session in this process", "a trace session in process 7". */
export function describeOwner(owner: LockOwner): string {
  const where = owner.host === self.host ? "" : ` on host ${owner.host}`;
  return owner.pid === self.pid && owner.host === self.host
    ? "another trace session in this process"
    : `a trace session in process ${owner.pid}${where}`;
}

/** Puts our lock file in place atomically; false when one exists already. */
function createLock(lockPath: string, text: string): boolean {
  const aside = `${lockPath}.${process.pid}.tmp`;
  writeFileSync(aside, text);
  try {
    linkSync(aside, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    // No hard links here (some FUSE and FAT mounts): fall back to an exclusive create.
    try {
      writeFileSync(lockPath, text, { flag: "wx" });
      return true;
    } catch (fallbackError) {
      if ((fallbackError as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw fallbackError;
    }
  } finally {
    unlinkSync(aside);
  }
}

/** Moves a stale lock out of the way, unless it changed hands since it was read. */
function breakStaleLock(lockPath: string, staleText: string): void {
  const aside = `${lockPath}.${process.pid}.stale`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (readText(aside) !== staleText) {
    // Another process took over meanwhile and we moved its live lock: put it back.
    try {
      linkSync(aside, lockPath);
    } catch {
      // A third lock is in place already; the loop reads and reports it.
    }
  }
  unlinkSync(aside);
}

/** What stops a lock from being taken: a live owner, or a lock file that cannot be read. */
export type LockRefusal =
  | { readonly kind: "owner"; readonly owner: LockOwner }
  | { readonly kind: "unreadable" }
  | { readonly kind: "contended" };

/**
 * Creates `lockPath` holding `text`, clearing locks of dead owners on the way. Returns a release
 * function, or why it could not be taken.
 */
export function takeLockFile(lockPath: string, text: string): (() => void) | LockRefusal {
  // A few rounds: each one either takes the lock, reports a live owner, or clears a dead one.
  for (let attempt = 0; attempt < 8; attempt++) {
    if (createLock(lockPath, text)) {
      return () => {
        try {
          if (readText(lockPath) === text) unlinkSync(lockPath);
        } catch {
          // Releasing is best effort; a lock left behind is recognised as stale by its pid.
        }
      };
    }
    const found = readText(lockPath);
    if (found === undefined) continue;
    const owner = parseOwner(found);
    if (owner === undefined) return { kind: "unreadable" };
    if (isAlive(owner)) return { kind: "owner", owner };
    breakStaleLock(lockPath, found);
  }
  return { kind: "contended" };
}
