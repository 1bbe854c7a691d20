// Ctrl-C (SIGINT) or a kill (SIGTERM) in the middle of writing must not leave a half-written temp
// file or a sort's spill folder behind. Writers register a synchronous cleanup while they hold such
// files; on the signal every cleanup runs, then the process dies of the same signal, as it would
// have without a handler (so a shell sees 130/143 and `set -e` scripts stop).

const cleanups = new Set<() => void>();
const SIGNALS = ["SIGINT", "SIGTERM"] as const;

function onSignal(signal: NodeJS.Signals): void {
  for (const cleanup of cleanups) {
    try {
      cleanup();
    } catch {
      // Best effort: the process is going away.
    }
  }
  cleanups.clear();
  for (const name of SIGNALS) process.removeListener(name, onSignal);
  process.kill(process.pid, signal);
}

/** Runs `cleanup` if SIGINT or SIGTERM arrives before the returned function is called. */
export function cleanupOnInterrupt(cleanup: () => void): () => void {
  if (cleanups.size === 0) for (const name of SIGNALS) process.on(name, onSignal);
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
    if (cleanups.size === 0) for (const name of SIGNALS) process.removeListener(name, onSignal);
  };
}
