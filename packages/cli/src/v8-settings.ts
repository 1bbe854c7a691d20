// The V8 flags `cg-trace` sets at start, unless `node`'s own options chose the same setting.
//
// The heap, kept close to what a streamed command keeps alive. By default V8 doubles a semi-space
// (1 → 16 MiB) each time the bytes surviving scavenges since the last growth exceed it, a sum that
// only grows, so any long read ends with a 3 × 16 MiB young generation, mostly garbage; and it lets
// the old generation grow to several times its live size before marking it again, further on a
// busy machine where concurrent marking lags. A streamed read keeps a few tens of MB alive and
// makes garbage fast: both defaults cost RSS (see the README's table).
//
// For the commands that fold one trace through the engine holding little (`summary`, `validate`,
// `query`), though, 1 MiB semi-spaces cost the most: about 240 scavenges per GiB read, 3–13 % of
// their CPU. Their young generation grows once, to 4 MiB semi-spaces (a few MiB of RSS), and stays.
//
// TurboFan's inlining, cut to 300 bytes of bytecode inlined into one function in all (V8's default
// is 920). A command's first read of a trace spends much of its CPU compiling the reader's
// JavaScript on V8's helper threads, and the reader's hot loops inlined the whole string-interning
// path two or three times over. With less inlining, a command on a 20–100 MB trace takes 5–14 % less
// CPU, and on 1 GiB the same (see the README). `demo` keeps V8's default: the model it trains is
// the program being profiled, and should run as it would anywhere else.
import { PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";

/** Semi-spaces stay at their size: they never grow (again). */
const KEEP_YOUNG_SIZE = "--semi-space-growth-factor=1";

/** Less inlining (see above). */
export const LESS_INLINING_FLAG = "--max-inlined-bytecode-size-cumulative=300";

/**
 * Each V8 flag with the `node` options that mean its user chose that setting already, and the
 * commands that keep V8's default.
 */
export const V8_SETTINGS: ReadonlyArray<{ flag: string; chosenBy: RegExp; except?: readonly string[] }> = [
  // Semi-spaces stay at their first size (1 MiB): they never grow.
  { flag: KEEP_YOUNG_SIZE, chosenBy: /^--(max-|min-)?semi-space-(size|growth-factor)\b/ },
  // The old generation is marked again once it is 1.5 × what the last marking kept alive.
  { flag: "--heap-growing-percent=50", chosenBy: /^--heap-growing-percent\b/ },
  { flag: LESS_INLINING_FLAG, chosenBy: /^--max-inlined-bytecode-size-cumulative\b/, except: ["demo"] },
];

/** The commands whose young generation grows once (see above), and by how much. */
const GROW_ONCE_COMMANDS: ReadonlySet<string> = new Set(["summary", "validate", "query"]);
export const GROW_ONCE_FLAG = "--semi-space-growth-factor=4";

/** The options `node` was started with, from its command line and NODE_OPTIONS (`_` read as `-`). */
function nodeOptionNames(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const options = [...execArgv, ...(nodeOptions ?? "").split(/\s+/)];
  return options.filter((option) => option.startsWith("--")).map((option) => option.replaceAll("_", "-"));
}

/**
 * The flags to set for `command` (the first argument of `cg-trace`): each one whose setting was not
 * chosen when `node` was started.
 */
export function v8Flags(
  execArgv: readonly string[],
  nodeOptions: string | undefined,
  command?: string,
): string[] {
  const chosen = nodeOptionNames(execArgv, nodeOptions);
  const growOnce = command !== undefined && GROW_ONCE_COMMANDS.has(command);
  return V8_SETTINGS.filter(
    ({ chosenBy, except }) =>
      !chosen.some((option) => chosenBy.test(option)) &&
      !(command !== undefined && except?.includes(command)),
  ).map(({ flag }) => (growOnce && flag === KEEP_YOUNG_SIZE ? GROW_ONCE_FLAG : flag));
}

/** The young generation's semi-space capacity: what V8 reports as used and available in it. */
function youngGenerationCapacity(): number {
  const space = getHeapSpaceStatistics().find((each) => each.space_name === "new_space");
  return space === undefined ? 0 : space.space_used_size + space.space_available_size;
}

/**
 * Stops the young generation's growth after its first: V8 reads the growth factor at each growth,
 * and a scavenge's `gc` entry reaches the observer while the read awaits its next chunk, long before
 * enough bytes survive to earn another growth.
 */
function stopGrowthAfterTheFirst(): void {
  const first = youngGenerationCapacity();
  const observer = new PerformanceObserver(() => {
    if (youngGenerationCapacity() <= first) return;
    setFlagsFromString(KEEP_YOUNG_SIZE);
    observer.disconnect();
  });
  observer.observe({ entryTypes: ["gc"] });
}

/**
 * Sets the V8 flags for the command in `args` (`cg-trace`'s arguments) unless `node`'s options
 * chose them; call before anything else is loaded (loading grows the young generation, and
 * compiles).
 */
export function applyV8Settings(
  args: readonly string[] = process.argv.slice(2),
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): void {
  const flags = v8Flags(execArgv, nodeOptions, args[0]);
  for (const flag of flags) setFlagsFromString(flag);
  if (flags.includes(GROW_ONCE_FLAG)) stopGrowthAfterTheFirst();
}
