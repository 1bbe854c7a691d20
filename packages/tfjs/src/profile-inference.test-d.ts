// The profiling wrappers return what the wrapped step returns, synchronous or not.
import { describe, expectTypeOf, it } from "vitest";
import { type ProfiledStep, profileInference, profileInferenceAsync } from "./index.js";

declare const session: Parameters<typeof profileInference>[0];

describe("profileInference", () => {
  it("carries the step's result type", () => {
    expectTypeOf(profileInference(session, () => 42)).toEqualTypeOf<ProfiledStep<number>>();
    expectTypeOf(profileInference(session, () => ({ loss: 0.5 })).result).toEqualTypeOf<{ loss: number }>();
  });

  it("awaits the step in the async form", () => {
    expectTypeOf(profileInferenceAsync(session, async () => "done")).toEqualTypeOf<
      Promise<ProfiledStep<string>>
    >();
    // @ts-expect-error the async form needs a step that returns a promise
    profileInferenceAsync(session, () => "done");
  });
});
