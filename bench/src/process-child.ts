// The child side of process-harness.ts: builds one contender, warms it, times it and prints one
// JSON line. A separate entry, so that the bench module it imports can import the harness.
import {
  CHILD_FLAG,
  type ChildResult,
  type ContenderFactory,
  median,
  type Operation,
} from "./process-harness.js";

function cpuNs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) * 1000;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function timedBatch(operation: Operation, operations: number, turnEvery: number, segments: number[]) {
  let checksum: unknown;
  const slice = turnEvery > 0 ? turnEvery : operations;
  for (let done = 0; done < operations; done += slice) {
    const count = Math.min(slice, operations - done);
    const start = performance.now();
    const result = operation.run(count);
    checksum = result instanceof Promise ? await result : result;
    segments.push((performance.now() - start) / count);
    if (turnEvery > 0) await turn();
  }
  const settled = operation.settle?.();
  if (settled instanceof Promise) await settled;
  return checksum;
}

/** Child side: builds one contender, warms it, times it, prints one JSON line. */
export async function runChild(options: {
  module: string;
  group: string;
  contender: string;
  operations: number;
  turnEvery: number;
  warmUpBatches: number;
  timedBatches: number;
  input: Record<string, string>;
}): Promise<ChildResult> {
  const loaded = (await import(options.module)) as {
    groups?: Record<string, Record<string, ContenderFactory>>;
  };
  const factory = loaded.groups?.[options.group]?.[options.contender];
  if (factory === undefined) throw new Error(`no contender ${options.group}/${options.contender}`);
  const operation = await factory(options.input);
  const ignored: number[] = [];
  for (let batch = 0; batch < options.warmUpBatches; batch++) {
    await timedBatch(operation, options.operations, options.turnEvery, ignored);
  }
  let maxRssBytes = 0;
  const cpu: number[] = [];
  const wall: number[] = [];
  const segments: number[] = [];
  let checksum: unknown;
  for (let batch = 0; batch < options.timedBatches; batch++) {
    const cpuStart = cpuNs();
    const wallStart = performance.now();
    checksum = await timedBatch(operation, options.operations, options.turnEvery, segments);
    const spawned = operation.spawned?.();
    if (spawned !== undefined) maxRssBytes = Math.max(maxRssBytes, spawned.maxRssBytes);
    cpu.push((cpuNs() - cpuStart + (spawned?.cpuNs ?? 0)) / options.operations);
    wall.push(((performance.now() - wallStart) * 1e6) / options.operations);
  }
  const closed = operation.close?.();
  if (closed instanceof Promise) await closed;
  return {
    nsPerOperation: median(cpu),
    cpuNsPerOperation: median(cpu),
    wallNsPerOperation: median(wall),
    segmentNsPerOperation: median(segments) * 1e6,
    checksum,
    maxRssBytes: maxRssBytes > 0 ? maxRssBytes : process.resourceUsage().maxRSS * 1024,
  };
}

const request = process.env[CHILD_FLAG];
if (request === undefined) throw new Error(`${CHILD_FLAG} is not set`);
console.log(JSON.stringify(await runChild(JSON.parse(request))));
process.exit(0);
