// Steps 10–17 of spec §12.1: warnings for evidence a trace does not carry.
import { type HealthIssue, healthWarning as warning } from "./health-issue.js";

export interface PresenceCounts {
  operations: number;
  tensors: number;
  memory: number;
  deviceMemory: number;
  gradients: number;
  forward: number;
  backward: number;
  optimizer: number;
  train: boolean;
}

/** Steps 10–17: evidence gaps. */
export function pushPresenceWarnings(issues: HealthIssue[], counts: PresenceCounts): void {
  if (counts.operations === 0)
    issues.push(warning("operations_absent", "no timed operation evidence was captured"));
  if (counts.tensors === 0) issues.push(warning("tensors_absent", "no tensor checkpoints were captured"));
  if (counts.memory === 0) issues.push(warning("memory_absent", "no tensor memory events were captured"));
  if (counts.deviceMemory === 0) {
    issues.push(warning("device_memory_absent", "no device-memory checkpoints were captured"));
  }
  if (!counts.train) return;
  if (counts.gradients === 0) {
    issues.push(warning("gradients_absent", "no gradient facts were captured for this training run"));
  }
  if (counts.forward === 0) issues.push(warning("forward_absent", "no forward span was tagged"));
  if (counts.backward === 0) issues.push(warning("backward_absent", "no backward span was tagged"));
  if (counts.optimizer === 0) issues.push(warning("optimizer_absent", "no optimizer span was tagged"));
}
