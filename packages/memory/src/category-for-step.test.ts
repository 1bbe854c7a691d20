import { describe, expect, it } from "vitest";
import { categoryForStep } from "./category-for-step.js";

describe("categoryForStep (spec §15.5)", () => {
  it.each([
    ["backward", true, "gradient"],
    ["backward", false, "gradient"],
    ["optimizer", true, "optimizer"],
    ["optimizer", false, "optimizer"],
    ["forward", true, "activation"],
    ["forward", false, "activation"],
    [undefined, true, "parameter"],
    [undefined, false, "activation"],
  ] as const)("step %s, requires_grad %s -> %s", (step, requiresGrad, category) => {
    expect(categoryForStep(step, requiresGrad)).toBe(category);
  });
});
