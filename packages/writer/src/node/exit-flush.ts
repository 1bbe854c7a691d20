// One shared `process.on("exit")` listener over every open file sink: at exit each gets a
// best-effort flush, so a program that never calls finish() still leaves its buffered lines on disk.
// The listener is installed while at least one sink is open and removed with the last one.

interface Flushable {
  flushAtExit(): void;
}

const openSinks = new Set<Flushable>();

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
  if (openSinks.size === 0) process.on("exit", flushAll);
  openSinks.add(sink);
}

export function unregisterFromExitFlush(sink: Flushable): void {
  if (!openSinks.delete(sink)) return;
  if (openSinks.size === 0) process.off("exit", flushAll);
}

/** Number of sinks the exit hook would flush now (for tests and diagnostics). */
export function exitFlushRegistrySize(): number {
  return openSinks.size;
}
