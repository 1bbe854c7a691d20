// A child process that exports and kills itself with SIGKILL before step `stopAt` (-1: never),
// so that the parent sees what a real kill -9 leaves. Argv: stopAt, partitionBy, dir, traces...
import { exportParquet, type PartitionBy } from "../src/index.js";

const [stopAt, partitionBy, dir, ...traces] = process.argv.slice(2);
let seen = 0;
await exportParquet(traces, dir as string, {
  partitionBy: partitionBy as PartitionBy,
  beforeStep: (step) => {
    if (seen++ === Number(stopAt)) {
      process.stdout.write(`killed before ${JSON.stringify(step)}\n`);
      process.kill(process.pid, "SIGKILL");
    }
  },
});
process.stdout.write("done\n");
