// V8's heap kept close to what a streamed command keeps alive. By default V8 doubles a semi-space
// (1 → 16 MiB) each time the bytes surviving scavenges since the last growth exceed it, a sum that
// only grows, so any long read ends with a 3 × 16 MiB young generation, mostly garbage; and it lets
// the old generation grow to several times its live size before marking it again, further on a
// busy machine where concurrent marking lags. A streamed read keeps a few tens of MB alive and
// makes garbage fast: both defaults cost RSS and buy no measured speed (see the README's table).
import { setFlagsFromString } from "node:v8";

/** Each V8 flag with the `node` options that mean its user chose that setting already. */
export const HEAP_SETTINGS: ReadonlyArray<{ flag: string; chosenBy: RegExp }> = [
  // Semi-spaces stay at their first size (1 MiB): they never grow.
  { flag: "--semi-space-growth-factor=1", chosenBy: /^--(max-|min-)?semi-space-(size|growth-factor)\b/ },
  // The old generation is marked again once it is 1.5 × what the last marking kept alive.
  { flag: "--heap-growing-percent=50", chosenBy: /^--heap-growing-percent\b/ },
];

/** The options `node` was started with, from its command line and NODE_OPTIONS (`_` read as `-`). */
function nodeOptionNames(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const options = [...execArgv, ...(nodeOptions ?? "").split(/\s+/)];
  return options.filter((option) => option.startsWith("--")).map((option) => option.replaceAll("_", "-"));
}

/** The flags to set: each one whose setting was not chosen when `node` was started. */
export function heapFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const chosen = nodeOptionNames(execArgv, nodeOptions);
  return HEAP_SETTINGS.filter(({ chosenBy }) => !chosen.some((option) => chosenBy.test(option))).map(
    ({ flag }) => flag,
  );
}

/** Sets the heap flags; call before anything else is loaded (loading grows the young generation). */
export function applyHeapSettings(): void {
  for (const flag of heapFlags(process.execArgv, process.env.NODE_OPTIONS)) setFlagsFromString(flag);
}
