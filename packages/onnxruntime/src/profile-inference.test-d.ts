// profileInference's two forms: a model path or bytes (onnxruntime-node's own session types), or a
// session the caller made, whose feed and output types carry through.
import type { InferenceSession } from "onnxruntime-node";
import { describe, expectTypeOf, it } from "vitest";
import { type ProfilableSession, type ProfiledInference, profileInference } from "./index.js";

type Feeds = { input: Float32Array };
type Outputs = { logits: Float32Array };
declare const session: ProfilableSession<Feeds, Outputs>;
declare const feeds: InferenceSession.FeedsType;

describe("profileInference", () => {
  it("returns onnxruntime-node's outputs for a model path or bytes", () => {
    expectTypeOf(profileInference("model.onnx", feeds)).toEqualTypeOf<
      Promise<ProfiledInference<InferenceSession.ReturnType>>
    >();
    expectTypeOf(profileInference(new Uint8Array(), feeds)).toEqualTypeOf<
      Promise<ProfiledInference<InferenceSession.ReturnType>>
    >();
  });

  it("carries a caller's session types, which needs a profile file prefix", () => {
    const input = { input: new Float32Array(4) };
    expectTypeOf(profileInference(session, input, { profileFilePrefix: "p" })).toEqualTypeOf<
      Promise<ProfiledInference<Outputs>>
    >();
    // @ts-expect-error a caller's session needs profileFilePrefix
    profileInference(session, input);
    // @ts-expect-error the feeds must be the session's
    profileInference(session, { other: 1 }, { profileFilePrefix: "p" });
  });
});
