import type { InferenceSession } from "onnxruntime-node";
import { textEncoderModel } from "./feature-extraction-model.js";
import { type ProfiledInference, profileInference } from "./profile-inference.js";

export interface OnnxruntimeDemoOptions {
  /** Where the trace goes. */
  outPath: string;
  /** Runs before the captured one; default 2. */
  warmup?: number | undefined;
  /** Sentences in the batch; default 4. */
  batch?: number | undefined;
  /** Tokens per sentence; default 16. */
  tokens?: number | undefined;
}

export interface OnnxruntimeDemoResult {
  /** One line saying what ran. */
  readonly description: string;
  readonly profiled: ProfiledInference<InferenceSession.ReturnType>;
}

/**
 * Profiles a real ONNX Runtime inference: the small text encoder (token embeddings, attention-mask
 * multiply, one dense layer with tanh and a residual) on a batch of token ids, through
 * `profileInference`: warm-ups in a session without the profiler, one profiled warm-up, the captured run.
 */
export async function runOnnxruntimeDemo(options: OnnxruntimeDemoOptions): Promise<OnnxruntimeDemoResult> {
  const ort = await import("onnxruntime-node"); // only here: the package itself never loads the native runtime
  const batch = options.batch ?? 4;
  const tokens = options.tokens ?? 16;
  const ids = new BigInt64Array(batch * tokens);
  for (let index = 0; index < ids.length; index++) ids[index] = BigInt(4 + ((index * 7) % 20));
  const feeds = {
    input_ids: new ort.Tensor("int64", ids, [batch, tokens]),
    attention_mask: new ort.Tensor("int64", new BigInt64Array(batch * tokens).fill(1n), [batch, tokens]),
  };
  const warmup = options.warmup ?? 2;
  const profiled = await profileInference(textEncoderModel(), feeds, {
    warmup,
    out: options.outPath,
    entrypoint: "onnxruntime-demo::text_encoder",
    tags: {
      model: "text-encoder-24x32",
      batch_size: String(batch),
      tokens: String(tokens),
      framework: "onnxruntime",
    },
  });
  return {
    description: `the ONNX text encoder (embeddings 24×32, dense 32→32 tanh + residual) on ${batch}×${tokens} tokens, onnxruntime-node ${ort.env.versions.node ?? "?"} CPU`,
    profiled,
  };
}
