// Exclusive ownership of a trace path while a session writes it, so two sessions can never write
// (and truncate) the same file and both report success.
//
// In one process: a registry of the real paths being written, shared through `globalThis` so that
// two copies of this package (an ESM and a CJS build, two installed versions) see each other.
// Across processes: a lock file `<trace>.lock` (see `lock-file.ts`). The path is one name of the
// file; `identity-lock.ts` guards the file itself against its other names (hard links).
import { TraceSessionError } from "../trace-session-error.js";
import { describeOwner, ownerText, takeLockFile } from "./lock-file.js";

const registryKey = Symbol.for("@cg/writer/open-trace-paths");
const globalSlot = globalThis as { [registryKey]?: Set<string> };
globalSlot[registryKey] ??= new Set<string>();
const openPaths: Set<string> = globalSlot[registryKey];

function inUse(path: string, detail: string): TraceSessionError {
  return new TraceSessionError({
    message: `${path} is already being written by ${detail}; finish that session first`,
    code: "path_in_use",
  });
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
  const taken = takeLockFile(lockPath, ownerText());
  if (typeof taken !== "function") {
    if (taken.kind === "owner") throw inUse(realPath, describeOwner(taken.owner));
    throw inUse(
      realPath,
      taken.kind === "unreadable"
        ? `an unknown owner (unreadable lock file ${lockPath}; remove it if no capture runs)`
        : `another process (its lock file ${lockPath} keeps changing hands)`,
    );
  }
  openPaths.add(realPath);
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      openPaths.delete(realPath);
      taken();
    },
  };
}
