// Steps 8–9 of spec §12.1: allocations paired by (device, tensor id), in timestamp order.
import { healthError as error, type HealthIssue, healthWarning as warning } from "./health-issue.js";
import { StringSet } from "./string-set.js";

export class AllocationPairing {
  // StringSet, not Set: streaming summaries feed millions of add/delete pairs (see string-set.ts).
  readonly #live = new Map<string, StringSet>();
  #liveCount = 0;
  // The last device's set: runs of events name one device, found by a comparison, not a lookup.
  #lastDevice: string | undefined;
  #lastLive: StringSet | undefined;

  add(device: string, tensorId: string, action: "alloc" | "free", issues: HealthIssue[]): void {
    let live = device === this.#lastDevice ? this.#lastLive : this.#live.get(device);
    if (action === "alloc") {
      if (live === undefined) {
        live = new StringSet();
        this.#live.set(device, live);
      }
      this.#lastDevice = device;
      this.#lastLive = live;
      if (live.add(tensorId)) {
        this.#liveCount++;
      } else {
        issues.push(
          error("duplicate_allocation", `tensor \`${tensorId}\` was allocated twice without a free`),
        );
      }
    } else if (live?.delete(tensorId)) {
      this.#liveCount--;
    } else {
      issues.push(error("unpaired_free", `tensor \`${tensorId}\` was freed without a live allocation`));
    }
  }

  get liveCount(): number {
    return this.#liveCount;
  }

  finish(issues: HealthIssue[]): void {
    if (this.#liveCount > 0) {
      issues.push(
        warning(
          "retained_allocations",
          `${this.#liveCount} explicit allocations remained live at measurement end`,
        ),
      );
    }
  }
}
