// Exclusive ownership of a trace path while a session writes it, so two sessions can never write
// (and truncate) the same file and both report success.
//
// In one process: a registry of the real paths being written, shared through `globalThis` so that
// two copies of this package (an ESM and a CJS build, two installed versions) see each other.
// Across processes: a lock file `<trace>.lock` created atomically (written aside, then hard-linked
// into place, so it is never seen half written) that names its owner: pid, the process start time
// and the host. A lock is only ever broken when its owner is provably gone — no such pid, or the pid
// now belongs to a process started at another time (pid reuse) — never because of its age: a
// capture that runs a synchronous loop for an hour keeps its lock. A lock from another host, or one
// that cannot be read, is reported, not broken, and the error names the file to remove.
// (Time-based lock libraries such as proper-lockfile refresh an mtime from a timer, which a busy
// synchronous capture loop starves until the lock looks stale to another process.)
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { TraceSessionError } from "../trace-session-error.js";

const registryKey = Symbol.for("@cg/writer/open-trace-paths");
const globalSlot = globalThis as { [registryKey]?: Set<string> };
globalSlot[registryKey] ??= new Set<string>();
const openPaths: Set<string> = globalSlot[registryKey];

interface LockOwner {
  pid: number;
  start: string;
  host: string;
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
const selfText = JSON.stringify(self);

function parseOwner(text: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(text) as Partial<LockOwner>;
    return Number.isSafeInteger(owner.pid) &&
      typeof owner.start === "string" &&
      typeof owner.host === "string"
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

function inUse(path: string, detail: string): TraceSessionError {
  return new TraceSessionError({
    message: `${path} is already being written by ${detail}; finish that session first`,
    code: "path_in_use",
  });
}

function describeOwner(owner: LockOwner): string {
  const where = owner.host === self.host ? "" : ` on host ${owner.host}`;
  return owner.pid === self.pid && owner.host === self.host
    ? "another trace session in this process"
    : `a trace session in process ${owner.pid}${where}`;
}

/** Puts our lock file in place atomically; false when one exists already. */
function createLock(lockPath: string): boolean {
  const aside = `${lockPath}.${process.pid}.tmp`;
  writeFileSync(aside, selfText);
  try {
    linkSync(aside, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    // No hard links here (some FUSE and FAT mounts): fall back to an exclusive create.
    try {
      writeFileSync(lockPath, selfText, { flag: "wx" });
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

/** A held path; `release` gives it up (idempotent). */
export interface PathLock {
  release(): void;
}

/**
 * Takes `realPath` for one session: in this process and, through `<realPath>.lock`, across
 * processes. Throws TraceSessionError `path_in_use` when a live session holds it.
 */
export function lockTracePath(realPath: string): PathLock {
  if (openPaths.has(realPath)) throw inUse(realPath, "another trace session in this process");
  const lockPath = `${realPath}.lock`;
  let acquired = false;
  // A few rounds: each one either takes the lock, reports a live owner, or clears a dead one.
  for (let attempt = 0; attempt < 8 && !acquired; attempt++) {
    acquired = createLock(lockPath);
    if (acquired) break;
    const text = readText(lockPath);
    if (text === undefined) continue;
    const owner = parseOwner(text);
    if (owner === undefined) {
      throw inUse(
        realPath,
        `an unknown owner (unreadable lock file ${lockPath}; remove it if no capture runs)`,
      );
    }
    if (isAlive(owner)) throw inUse(realPath, describeOwner(owner));
    breakStaleLock(lockPath, text);
  }
  if (!acquired) throw inUse(realPath, `another process (its lock file ${lockPath} keeps changing hands)`);
  openPaths.add(realPath);
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      openPaths.delete(realPath);
      try {
        if (readText(lockPath) === selfText) unlinkSync(lockPath);
      } catch {
        // Releasing is best effort; a lock left behind is recognised as stale by its pid.
      }
    },
  };
}
