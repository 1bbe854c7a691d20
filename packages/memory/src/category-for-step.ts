import type { ExecutionStep, MemoryCategory } from "@cg/schema/core";

/**
 * Memory category implied by an execution step (spec §15.5): backward → gradient, optimizer →
 * optimizer, forward → activation; without a step, parameter when the tensor requires gradients,
 * else activation. Never yields `other` (that is only the wire default).
 */
export function categoryForStep(step: ExecutionStep | undefined, requiresGrad: boolean): MemoryCategory {
  switch (step) {
    case "backward":
      return "gradient";
    case "optimizer":
      return "optimizer";
    case "forward":
      return "activation";
    default:
      return requiresGrad ? "parameter" : "activation";
  }
}
