// One shared exit hook over every open file sink: when the process ends — a normal exit, an
// uncaught exception, or a fatal signal such as SIGINT or SIGTERM — each sink gets a best-effort
// flush (and gives up its path lock), so a program that never calls finish() still leaves its
// buffered lines on disk.
//
// `signal-exit` does the signal plumbing without changing how the process ends: when the host has
// no handler of its own for a signal, it runs the hook and then re-raises the signal, so the exit
// status is the one the process would have had without us; when the host has a handler, the
// signal is the host's business and the process is not ended (its later exit still runs the hook).
// The hook is installed while at least one sink is open and removed with the last one.
import { onExit } from "signal-exit";

interface Flushable {
  flushAtExit(): void;
}

const openSinks = new Set<Flushable>();
let removeHook: (() => void) | undefined;

function flushAll(): void {
  for (const sink of openSinks) {
    try {
      sink.flushAtExit();
    } catch {
      // Exit is no time to throw; the trace simply ends where it could be written.
    }
  }
}

export function registerForExitFlush(sink: Flushable): void {
  if (openSinks.size === 0) removeHook = onExit(flushAll);
  openSinks.add(sink);
}

export function unregisterFromExitFlush(sink: Flushable): void {
  if (!openSinks.delete(sink)) return;
  if (openSinks.size === 0) {
    removeHook?.();
    removeHook = undefined;
  }
}

/** Number of sinks the exit hook would flush now (for tests and diagnostics). */
export function exitFlushRegistrySize(): number {
  return openSinks.size;
}
